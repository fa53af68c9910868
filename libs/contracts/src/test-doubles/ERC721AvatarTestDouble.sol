// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from '@openzeppelin/contracts/token/ERC721/ERC721.sol';

/// @title ERC721AvatarTestDouble
/// @notice An ERC-721 collection whose tokens carry any token URI (https, ipfs, data:), standing in for the
///         NFT collections ENSIP-12 avatar records point at. Anyone may mint: it only lives on test chains.
contract ERC721AvatarTestDouble is ERC721 {
    mapping(uint256 => string) private uris;

    constructor() ERC721('Avatar Test Double', 'AVTD') {}

    function mint(address to, uint256 tokenId, string calldata uri) external {
        uris[tokenId] = uri;
        _mint(to, tokenId);
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        return uris[tokenId];
    }
}
