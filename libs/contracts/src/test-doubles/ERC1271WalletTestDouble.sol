// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from '@openzeppelin/contracts/utils/cryptography/ECDSA.sol';

/// @title ERC1271WalletTestDouble
/// @notice A minimal ERC-1271 contract wallet with a single owner EOA, standing in for a smart-contract
///         wallet (Safe, Coinbase Smart Wallet...) in tests. `hash` is checked as signed directly by the
///         owner (raw digest, no extra prefix).
contract ERC1271WalletTestDouble {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == owner) return MAGIC_VALUE;
        return INVALID;
    }

    receive() external payable {}
}
