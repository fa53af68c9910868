// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

interface IMintControllerRegistry {
    function owner(bytes32 node) external view returns (address);
    function setOwner(bytes32 node, address owner) external;
    function setSubnodeRecord(bytes32 node, bytes32 label, address owner, address resolver, uint64 ttl) external;
}

interface IMintControllerNameWrapper {
    function ownerOf(uint256 id) external view returns (address);
    function setSubnodeRecord(
        bytes32 parentNode,
        string calldata label,
        address owner,
        address resolver,
        uint64 ttl,
        uint32 fuses,
        uint64 expiry
    ) external returns (bytes32);
}

/// @title MintController
/// @notice Mints ENS subnames with parameters signed (EIP-712) by the mint service. The parent's owner approves
///         this contract (ENS registry `setApprovalForAll`, or NameWrapper `setApprovalForAll` for a wrapped
///         parent); anyone holding a valid signature for themselves (`verifiedMinter`) then mints by paying
///         `price + fee`: `price` goes to `paymentReceiver`, `fee` to the treasury, the excess back to the sender.
/// @dev    `resolverData` are calls on the controller's resolver (e.g. PublicResolver setText/setAddr) whose first
///         argument must be the new subname's node, so they can only write records of the name being minted.
///         `extraData` is reserved (same function shape as Namespace's controller) and ignored.
contract MintController is EIP712, Ownable, ReentrancyGuard {
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

    IMintControllerRegistry public immutable registry;
    IMintControllerNameWrapper public immutable nameWrapper;
    address public resolver;
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
    event ResolverUpdated(address resolver);

    error SignatureExpired(uint256 signatureExpiry);
    error UnauthorisedMinter(address sender, address verifiedMinter);
    error InsufficientPayment(uint256 sent, uint256 required);
    error InvalidSignature();
    error SignatureAlreadyUsed(bytes32 digest);
    error InvalidOwner();
    error NameAlreadyExists(bytes32 node);
    error NoResolver();
    error ResolverDataNotForNode(uint256 index);
    error ResolverCallFailed(uint256 index, bytes reason);
    error PaymentFailed(address to, uint256 amount);
    error ZeroAddress();

    constructor(
        address registry_,
        address nameWrapper_,
        address resolver_,
        address treasury_,
        address signer_,
        address owner_
    ) EIP712("NameRecordsMint", "1") Ownable(owner_) {
        if (registry_ == address(0) || treasury_ == address(0)) revert ZeroAddress();
        registry = IMintControllerRegistry(registry_);
        nameWrapper = IMintControllerNameWrapper(nameWrapper_);
        resolver = resolver_;
        treasury = treasury_;
        if (signer_ != address(0)) {
            signers[signer_] = true;
            emit SignerUpdated(signer_, true);
        }
    }

    // ----- administration -----

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

    function setResolver(address resolver_) external onlyOwner {
        resolver = resolver_;
        emit ResolverUpdated(resolver_);
    }

    // ----- minting -----

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

    /// @notice Whether the subname `label` under `parentNode` exists (a live owner in the registry or wrapper).
    function subnameExists(bytes32 parentNode, string calldata label) public view returns (bool) {
        return _exists(_subnode(parentNode, label));
    }

    function mint(
        MintContext calldata ctx,
        bytes calldata sig,
        bytes[] calldata resolverData,
        bytes calldata extraData
    ) external payable nonReentrant {
        extraData; // reserved
        uint256 total = _checkAndConsume(ctx, sig);
        bytes32 node = _subnode(ctx.parentNode, ctx.label);
        if (_exists(node)) revert NameAlreadyExists(node);
        if (_isWrapped(ctx.parentNode)) _createWrapped(ctx, node, resolverData);
        else _createUnwrapped(ctx, node, resolverData);
        _emitMinted(ctx, node);

        _pay(ctx.paymentReceiver, ctx.price);
        _pay(treasury, ctx.fee);
        _pay(msg.sender, msg.value - total);
    }

    // ----- ERC-1155 receiver (a real NameWrapper mints to this contract before it hands the name over) -----

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(
        address,
        address,
        uint256[] calldata,
        uint256[] calldata,
        bytes calldata
    ) external pure returns (bytes4) {
        return this.onERC1155BatchReceived.selector;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x4e2312e0; // ERC-165, ERC-1155 receiver
    }

    // ----- internals -----

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

    function _emitMinted(MintContext calldata ctx, bytes32 node) internal {
        emit SubnameMinted(
            ctx.parentNode,
            node,
            ctx.owner,
            ctx.label,
            ctx.price,
            ctx.fee,
            ctx.paymentReceiver,
            ctx.expiry
        );
    }

    function _subnode(bytes32 parentNode, string calldata label) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(parentNode, keccak256(bytes(label))));
    }

    function _isWrapped(bytes32 node) internal view returns (bool) {
        return address(nameWrapper) != address(0) && registry.owner(node) == address(nameWrapper);
    }

    function _exists(bytes32 node) internal view returns (bool) {
        address registryOwner = registry.owner(node);
        if (registryOwner == address(0)) return false;
        if (registryOwner != address(nameWrapper)) return true;
        return nameWrapper.ownerOf(uint256(node)) != address(0);
    }

    function _createUnwrapped(MintContext calldata ctx, bytes32 node, bytes[] calldata resolverData) internal {
        bytes32 labelhash = keccak256(bytes(ctx.label));
        if (resolverData.length == 0) {
            registry.setSubnodeRecord(ctx.parentNode, labelhash, ctx.owner, resolver, 0);
            return;
        }
        registry.setSubnodeRecord(ctx.parentNode, labelhash, address(this), resolver, 0);
        _applyRecords(node, resolverData);
        registry.setOwner(node, ctx.owner);
    }

    function _createWrapped(MintContext calldata ctx, bytes32 node, bytes[] calldata resolverData) internal {
        if (resolverData.length == 0) {
            nameWrapper.setSubnodeRecord(ctx.parentNode, ctx.label, ctx.owner, resolver, 0, ctx.fuses, ctx.expiry);
            return;
        }
        // Own it first (no fuses, so the parent can still hand it over), write the records, then give it away.
        nameWrapper.setSubnodeRecord(ctx.parentNode, ctx.label, address(this), resolver, 0, 0, ctx.expiry);
        _applyRecords(node, resolverData);
        nameWrapper.setSubnodeRecord(ctx.parentNode, ctx.label, ctx.owner, resolver, 0, ctx.fuses, ctx.expiry);
    }

    function _applyRecords(bytes32 node, bytes[] calldata resolverData) internal {
        address target = resolver;
        if (target == address(0)) revert NoResolver();
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
