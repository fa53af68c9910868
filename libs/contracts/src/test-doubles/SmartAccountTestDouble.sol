// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from '@openzeppelin/contracts/utils/cryptography/ECDSA.sol';

/// @title SmartAccountTestDouble
/// @notice A minimal ERC-4337-style smart account with one owner EOA, deployed by SmartAccountFactoryTestDouble at
///         a CREATE2 address known before it exists (as Coinbase Smart Wallet's accounts are). ERC-1271: `hash` is
///         valid when the owner signed it directly (raw digest, no extra prefix).
contract SmartAccountTestDouble {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        return err == ECDSA.RecoverError.NoError && recovered == owner ? MAGIC_VALUE : INVALID;
    }

    receive() external payable {}
}
