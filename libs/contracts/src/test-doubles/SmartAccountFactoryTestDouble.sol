// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1271WalletTestDouble} from './ERC1271WalletTestDouble.sol';

/// @title SmartAccountFactoryTestDouble
/// @notice An ERC-4337-style account factory: `createAccount(owner, salt)` deploys a one-owner smart account (the
///         ERC1271WalletTestDouble) with CREATE2, or returns it when it exists; `getAddress(owner, salt)` says where it
///         is or will be, so the account signs (ERC-6492) before it exists, as Coinbase Smart Wallet's accounts do.
contract SmartAccountFactoryTestDouble {
    function createAccount(address owner, uint256 salt) external returns (address account) {
        account = getAddress(owner, salt);
        if (account.code.length == 0) new ERC1271WalletTestDouble{salt: bytes32(salt)}(owner);
    }

    function getAddress(address owner, uint256 salt) public view returns (address) {
        bytes32 initCode = keccak256(abi.encodePacked(type(ERC1271WalletTestDouble).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), initCode)))));
    }
}
