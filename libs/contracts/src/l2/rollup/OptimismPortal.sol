// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title OptimismPortal
/// @notice The part of the OP-stack OptimismPortal an output-oracle verifier reads: `l2Oracle()`, the L2OutputOracle
///         holding the L2's output roots (the Unruggable Gateways OPOutputFinder starts from the portal). The dev
///         stack's L2 takes no deposits, so nothing else of the portal is here.
contract OptimismPortal {
    address public immutable l2Oracle;

    constructor(address l2Oracle_) {
        l2Oracle = l2Oracle_;
    }
}
