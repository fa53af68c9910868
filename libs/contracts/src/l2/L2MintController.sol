// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SignedMintController} from "../SignedMintController.sol";

interface IL2MintRegistry {
    function parentNode() external view returns (bytes32);
    function available(string calldata label) external view returns (bool);
    function register(string calldata label, address to, uint64 expiry, uint32 fuses) external returns (bytes32);
}

/// @title L2MintController
/// @notice The L2 counterpart of MintController (both are SignedMintControllers, so the mint service signs one way
///         for both). It registers on one L2Registry (a controller there).
/// @dev    `resolverData` are record calls on the registry (setAddr/setText/setContenthash) whose first argument
///         must be the new name's node; the name is registered straight to `ctx.owner` and the controller writes them
///         in the same transaction (the registry lets the registering controller set them until it ends). `ctx.fuses` become the token's fuses (PARENT_CANNOT_CONTROL stops the parent's `revoke`);
///         `ctx.expiry` 0 means the name never expires.
contract L2MintController is SignedMintController {
    IL2MintRegistry public immutable registry;
    /// The registry's parent (immutable there too): read once, not on every mint.
    bytes32 public immutable parentNode;

    error WrongParent(bytes32 parentNode, bytes32 registryParent);

    constructor(
        address registry_,
        address treasury_,
        address signer_,
        address owner_
    ) SignedMintController(treasury_, signer_, owner_) {
        if (registry_ == address(0)) revert ZeroAddress();
        registry = IL2MintRegistry(registry_);
        parentNode = IL2MintRegistry(registry_).parentNode();
    }

    /// @notice Whether `label` under `parentNode` is registered and live (MintController's question).
    function subnameExists(bytes32 parentNode_, string calldata label) external view returns (bool) {
        return parentNode_ == parentNode && !registry.available(label);
    }

    /// Registers the name straight to its owner, then writes its records (the registry lets this controller set them
    /// until the transaction ends).
    function _create(
        MintContext calldata ctx,
        bytes[] calldata resolverData
    ) internal override returns (bytes32 node, uint64 expiry) {
        if (ctx.parentNode != parentNode) revert WrongParent(ctx.parentNode, parentNode);
        expiry = ctx.expiry == 0 ? type(uint64).max : ctx.expiry;
        // The registry refuses a live label (NameAlreadyExists, the same error as this contract's).
        node = registry.register(ctx.label, ctx.owner, expiry, ctx.fuses);
        _applyRecords(address(registry), node, resolverData);
    }
}
