// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from '@openzeppelin/contracts/token/ERC1155/ERC1155.sol';

/// @title ERC1155AvatarTestDouble
/// @notice An ERC-1155 collection with one URI template for every token (`{id}` substituted by clients, as
///         the standard says), standing in for the multi-token collections ENSIP-12 avatar records point at.
///         Anyone may mint: it only lives on test chains.
contract ERC1155AvatarTestDouble is ERC1155 {
    constructor(string memory uriTemplate) ERC1155(uriTemplate) {}

    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, '');
    }
}
