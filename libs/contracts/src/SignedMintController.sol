// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title SignedMintController
/// @notice What every mint controller of ours shares, on L1 and on an L2: the EIP-712 domain ("NameRecordsMint",
///         "1", this chain, this contract) and `MintContext` type the mint service signs, the checks of a signed
///         mint (expiry, minter, payment, signer, one use per signature), `mint(ctx, sig, resolverData, extraData)`
///         and the payments: `price` to `paymentReceiver`, `fee` to the treasury, the excess back to the sender.
///         A controller says only how a name is created (`_create`).
/// @dev    `resolverData` are record calls whose first argument must be the new name's node, so they can only
///         write records of the name being minted. `extraData` is reserved (Namespace's function shape) and ignored.
abstract contract SignedMintController is EIP712, Ownable, ReentrancyGuard {
    struct MintContext {
        address owner;
        string label;
        bytes32 parentNode;
        uint256 price;
        uint256 fee;
        address paymentReceiver;
        uint64 expiry;
        uint256 signatureExpiry;
        address verifiedMinter;
        uint32 fuses;
    }

    bytes32 public constant MINT_CONTEXT_TYPEHASH =
        keccak256(
            "MintContext(address owner,string label,bytes32 parentNode,uint256 price,uint256 fee,address paymentReceiver,uint64 expiry,uint256 signatureExpiry,address verifiedMinter,uint32 fuses)"
        );

    address public treasury;
    mapping(address => bool) public signers;
    /// EIP-712 digests already minted with: a signature mints once.
    mapping(bytes32 => bool) public usedDigests;

    event SubnameMinted(
        bytes32 indexed parentNode,
        bytes32 indexed node,
        address indexed owner,
        string label,
        uint256 price,
        uint256 fee,
        address paymentReceiver,
        uint64 expiry
    );
    event SignerUpdated(address indexed signer, bool enabled);
    event TreasuryUpdated(address treasury);

    error SignatureExpired(uint256 signatureExpiry);
    error UnauthorisedMinter(address sender, address verifiedMinter);
    error InsufficientPayment(uint256 sent, uint256 required);
    error InvalidSignature();
    error SignatureAlreadyUsed(bytes32 digest);
    error InvalidOwner();
    error NameAlreadyExists(bytes32 node);
    error ResolverDataNotForNode(uint256 index);
    error ResolverCallFailed(uint256 index, bytes reason);
    error PaymentFailed(address to, uint256 amount);
    error ZeroAddress();

    constructor(address treasury_, address signer_, address owner_) EIP712("NameRecordsMint", "1") Ownable(owner_) {
        if (treasury_ == address(0)) revert ZeroAddress();
        treasury = treasury_;
        if (signer_ != address(0)) {
            signers[signer_] = true;
            emit SignerUpdated(signer_, true);
        }
    }

    function setSigner(address signer, bool enabled) external onlyOwner {
        if (signer == address(0)) revert ZeroAddress();
        signers[signer] = enabled;
        emit SignerUpdated(signer, enabled);
    }

    function setTreasury(address treasury_) external onlyOwner {
        if (treasury_ == address(0)) revert ZeroAddress();
        treasury = treasury_;
        emit TreasuryUpdated(treasury_);
    }

    /// @notice The EIP-712 digest the service signs for `ctx`.
    function hashMintContext(MintContext calldata ctx) public view returns (bytes32) {
        bytes memory head = abi.encode(
            MINT_CONTEXT_TYPEHASH,
            ctx.owner,
            keccak256(bytes(ctx.label)),
            ctx.parentNode,
            ctx.price,
            ctx.fee
        );
        bytes memory tail = abi.encode(
            ctx.paymentReceiver,
            ctx.expiry,
            ctx.signatureExpiry,
            ctx.verifiedMinter,
            ctx.fuses
        );
        // Every member is one static word, so head ++ tail is abi.encode of all of them.
        return _hashTypedDataV4(keccak256(bytes.concat(head, tail)));
    }

    function mint(
        MintContext calldata ctx,
        bytes calldata sig,
        bytes[] calldata resolverData,
        bytes calldata extraData
    ) external payable nonReentrant {
        extraData; // reserved
        uint256 total = _checkAndConsume(ctx, sig);
        (bytes32 node, uint64 expiry) = _create(ctx, resolverData);
        _emitMinted(ctx, node, expiry);

        _pay(ctx.paymentReceiver, ctx.price);
        _pay(treasury, ctx.fee);
        _pay(msg.sender, msg.value - total);
    }

    /// Creates the name for `ctx.owner` with `resolverData`'s records (or reverts); returns its node and expiry.
    function _create(
        MintContext calldata ctx,
        bytes[] calldata resolverData
    ) internal virtual returns (bytes32 node, uint64 expiry);

    /// Checks expiry, sender, payment and signature, and marks the signature used. Returns price + fee.
    function _checkAndConsume(MintContext calldata ctx, bytes calldata sig) internal returns (uint256 total) {
        if (block.timestamp > ctx.signatureExpiry) revert SignatureExpired(ctx.signatureExpiry);
        if (msg.sender != ctx.verifiedMinter) revert UnauthorisedMinter(msg.sender, ctx.verifiedMinter);
        total = ctx.price + ctx.fee;
        if (msg.value < total) revert InsufficientPayment(msg.value, total);
        if (ctx.owner == address(0)) revert InvalidOwner();
        if (ctx.paymentReceiver == address(0) && ctx.price > 0) revert ZeroAddress();

        bytes32 digest = hashMintContext(ctx);
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(digest, sig);
        if (err != ECDSA.RecoverError.NoError || !signers[signer]) revert InvalidSignature();
        if (usedDigests[digest]) revert SignatureAlreadyUsed(digest);
        usedDigests[digest] = true;
    }

    // A function of its own: in `mint` the event's arguments are one stack slot too many.
    function _emitMinted(MintContext calldata ctx, bytes32 node, uint64 expiry) internal {
        emit SubnameMinted(ctx.parentNode, node, ctx.owner, ctx.label, ctx.price, ctx.fee, ctx.paymentReceiver, expiry);
    }

    /// Calls `target` with each of `resolverData`, each of which must be about `node`.
    function _applyRecords(address target, bytes32 node, bytes[] calldata resolverData) internal {
        for (uint256 i = 0; i < resolverData.length; i++) {
            bytes calldata data = resolverData[i];
            if (data.length < 36 || bytes32(data[4:36]) != node) revert ResolverDataNotForNode(i);
            (bool ok, bytes memory reason) = target.call(data);
            if (!ok) revert ResolverCallFailed(i, reason);
        }
    }

    function _pay(address to, uint256 amount) internal {
        if (amount == 0) return;
        (bool ok, ) = payable(to).call{value: amount}("");
        if (!ok) revert PaymentFailed(to, amount);
    }
}
