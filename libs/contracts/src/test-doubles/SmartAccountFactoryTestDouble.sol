// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SmartAccountTestDouble} from './SmartAccountTestDouble.sol';

/// @title SmartAccountFactoryTestDouble
/// @notice The ERC-4337-style factory of SmartAccountTestDouble: `createAccount(owner, salt)` deploys the account
///         with CREATE2 (or returns it when it exists), `getAddress(owner, salt)` says where it is or will be.
contract SmartAccountFactoryTestDouble {
    function createAccount(address owner, uint256 salt) external returns (address account) {
        account = getAddress(owner, salt);
        if (account.code.length == 0) new SmartAccountTestDouble{salt: bytes32(salt)}(owner);
    }

    function getAddress(address owner, uint256 salt) public view returns (address) {
        bytes32 initCode = keccak256(abi.encodePacked(type(SmartAccountTestDouble).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), initCode)))));
    }
}
