// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

interface IL2MintRegistry {
    function parentNode() external view returns (bytes32);
    function makeNode(string calldata label) external view returns (bytes32);
    function available(string calldata label) external view returns (bool);
    function register(string calldata label, address to, uint64 expiry, uint32 fuses) external returns (bytes32);
    function transferFrom(address from, address to, uint256 tokenId) external;
}

/// @title L2MintController
/// @notice The L2 counterpart of MintController: the same EIP-712 domain ("NameRecordsMint", "1", this chain, this
///         contract), the same `MintContext` type and the same `mint(ctx, sig, resolverData, extraData)` arguments,
///         so the mint service signs one way for both. It registers on one L2Registry (a controller there):
///         `price` goes to `paymentReceiver`, `fee` to the treasury, the excess back to the sender.
/// @dev    `resolverData` are record calls on the registry (setAddr/setText/setContenthash) whose first argument
///         must be the new name's node; the controller holds the token while it writes them, then transfers it to
///         `ctx.owner`. `ctx.fuses` become the token's fuses (PARENT_CANNOT_CONTROL stops the parent's `revoke`);
///         `ctx.expiry` 0 means the name never expires. `extraData` is reserved and ignored.
contract L2MintController is EIP712, Ownable, ReentrancyGuard {
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

    IL2MintRegistry public immutable registry;
    address public treasury;
    mapping(address => bool) public signers;
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
    error WrongParent(bytes32 parentNode, bytes32 registryParent);
    error NameAlreadyExists(bytes32 node);
    error ResolverDataNotForNode(uint256 index);
    error ResolverCallFailed(uint256 index, bytes reason);
    error PaymentFailed(address to, uint256 amount);
    error ZeroAddress();

    constructor(address registry_, address treasury_, address signer_, address owner_)
        EIP712("NameRecordsMint", "1")
        Ownable(owner_)
    {
        if (registry_ == address(0) || treasury_ == address(0)) revert ZeroAddress();
        registry = IL2MintRegistry(registry_);
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

    /// @notice The EIP-712 digest the service signs for `ctx` (as MintController's).
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

    /// @notice Whether `label` under `parentNode` is registered and live (MintController's question).
    function subnameExists(bytes32 parentNode, string calldata label) external view returns (bool) {
        return parentNode == registry.parentNode() && !registry.available(label);
    }

    function mint(
        MintContext calldata ctx,
        bytes calldata sig,
        bytes[] calldata resolverData,
        bytes calldata extraData
    ) external payable nonReentrant {
        extraData; // reserved
        uint256 total = _checkAndConsume(ctx, sig);
        _register(ctx, resolverData);

        _pay(ctx.paymentReceiver, ctx.price);
        _pay(treasury, ctx.fee);
        _pay(msg.sender, msg.value - total);
    }

    /// ERC-721 receiver: the registry mints to this contract while it writes the records.
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

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

    /// Registers the name to its owner, through this contract when records are written first.
    function _register(MintContext calldata ctx, bytes[] calldata resolverData) internal {
        bytes32 registryParent = registry.parentNode();
        if (ctx.parentNode != registryParent) revert WrongParent(ctx.parentNode, registryParent);
        bytes32 node = registry.makeNode(ctx.label);
        if (!registry.available(ctx.label)) revert NameAlreadyExists(node);
        uint64 expiry = ctx.expiry == 0 ? type(uint64).max : ctx.expiry;
        if (resolverData.length == 0) {
            registry.register(ctx.label, ctx.owner, expiry, ctx.fuses);
        } else {
            registry.register(ctx.label, address(this), expiry, ctx.fuses);
            _applyRecords(node, resolverData);
            registry.transferFrom(address(this), ctx.owner, uint256(node));
        }
        _emitMinted(ctx, node, expiry);
    }

    function _emitMinted(MintContext calldata ctx, bytes32 node, uint64 expiry) internal {
        emit SubnameMinted(ctx.parentNode, node, ctx.owner, ctx.label, ctx.price, ctx.fee, ctx.paymentReceiver, expiry);
    }

    function _applyRecords(bytes32 node, bytes[] calldata resolverData) internal {
        address target = address(registry);
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
