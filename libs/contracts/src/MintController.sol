// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SignedMintController} from "./SignedMintController.sol";

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
///         `price + fee` (see SignedMintController).
/// @dev    `resolverData` are calls on the controller's resolver (e.g. PublicResolver setText/setAddr).
contract MintController is SignedMintController {
    IMintControllerRegistry public immutable registry;
    IMintControllerNameWrapper public immutable nameWrapper;
    address public resolver;

    event ResolverUpdated(address resolver);

    error NoResolver();

    constructor(
        address registry_,
        address nameWrapper_,
        address resolver_,
        address treasury_,
        address signer_,
        address owner_
    ) SignedMintController(treasury_, signer_, owner_) {
        if (registry_ == address(0)) revert ZeroAddress();
        registry = IMintControllerRegistry(registry_);
        nameWrapper = IMintControllerNameWrapper(nameWrapper_);
        resolver = resolver_;
    }

    function setResolver(address resolver_) external onlyOwner {
        resolver = resolver_;
        emit ResolverUpdated(resolver_);
    }

    /// @notice Whether the subname `label` under `parentNode` exists (a live owner in the registry or wrapper).
    function subnameExists(bytes32 parentNode, string calldata label) public view returns (bool) {
        return _exists(_subnode(parentNode, label));
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

    function _create(
        MintContext calldata ctx,
        bytes[] calldata resolverData
    ) internal override returns (bytes32 node, uint64 expiry) {
        node = _subnode(ctx.parentNode, ctx.label);
        if (_exists(node)) revert NameAlreadyExists(node);
        if (_isWrapped(ctx.parentNode)) _createWrapped(ctx, node, resolverData);
        else _createUnwrapped(ctx, node, resolverData);
        return (node, ctx.expiry);
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
        _writeRecords(node, resolverData);
        registry.setOwner(node, ctx.owner);
    }

    function _createWrapped(MintContext calldata ctx, bytes32 node, bytes[] calldata resolverData) internal {
        if (resolverData.length == 0) {
            nameWrapper.setSubnodeRecord(ctx.parentNode, ctx.label, ctx.owner, resolver, 0, ctx.fuses, ctx.expiry);
            return;
        }
        // Own it first (no fuses, so the parent can still hand it over), write the records, then give it away.
        nameWrapper.setSubnodeRecord(ctx.parentNode, ctx.label, address(this), resolver, 0, 0, ctx.expiry);
        _writeRecords(node, resolverData);
        nameWrapper.setSubnodeRecord(ctx.parentNode, ctx.label, ctx.owner, resolver, 0, ctx.fuses, ctx.expiry);
    }

    function _writeRecords(bytes32 node, bytes[] calldata resolverData) internal {
        if (resolver == address(0)) revert NoResolver();
        _applyRecords(resolver, node, resolverData);
    }
}
