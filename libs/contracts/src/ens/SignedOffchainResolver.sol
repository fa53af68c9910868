// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from '@openzeppelin/contracts/utils/cryptography/ECDSA.sol';
import {ExtendedResolverFeatures} from './ExtendedResolverFeatures.sol';

/// @title SignedOffchainResolver
/// @notice Our ENSIP-10 extended resolver for offchain subnames: every `resolve(name, data)` is an EIP-3668
///         `OffchainLookup` to our gateway, whose answer `abi.encode(bytes result, uint64 expires, bytes sig)` must
///         be signed by a trusted signer over
///         `keccak256(0x1900 ‖ target ‖ uint64 expires ‖ keccak256(request) ‖ keccak256(result))`
///         (the digest ENS's OffchainResolver uses, so the same gateway serves both).
///
///         It advertises ERC-7996 with the ENSIP-22 RESOLVE_MULTICALL feature: a universal resolver sends a whole
///         profile as one `resolve(name, multicall(bytes[]))`, answered by one gateway request. Through a universal
///         resolver the lookup's sender is the universal resolver (it re-raises the lookup as its own), so the
///         gateway signs for the sender it sees; `target` is therefore accepted when it is this contract or the
///         caller of `resolveWithProof` (the universal resolver in that case). The request hash still binds the
///         answer to the exact name and call.
contract SignedOffchainResolver is ExtendedResolverFeatures {
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);
    error SignatureExpired(uint64 expires);
    error UntrustedSigner(address signer);
    error InvalidGatewayResponse();
    error Unauthorized(address caller);

    event SignersChanged(address[] signers, bool trusted);

    string public url;
    address public immutable owner;
    mapping(address => bool) public signers;

    constructor(string memory url_, address[] memory signers_) {
        url = url_;
        owner = msg.sender;
        _setSigners(signers_, true);
    }

    function setSigners(address[] calldata signers_, bool trusted) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        _setSigners(signers_, trusted);
    }

    function _setSigners(address[] memory signers_, bool trusted) internal {
        for (uint256 i = 0; i < signers_.length; i++) signers[signers_[i]] = trusted;
        emit SignersChanged(signers_, trusted);
    }

    /// @notice Always an `OffchainLookup` to the gateway with `resolve(name, data)` as the request.
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory) {
        bytes memory request = abi.encodeWithSelector(EXTENDED_RESOLVER_ID, name, data);
        string[] memory urls = new string[](1);
        urls[0] = url;
        revert OffchainLookup(address(this), urls, request, this.resolveWithProof.selector, request);
    }

    /// @notice EIP-3668 callback: the gateway's signed answer to `extraData` (the request), or a revert.
    function resolveWithProof(bytes calldata response, bytes calldata extraData) external view returns (bytes memory) {
        bytes memory result;
        uint64 expires;
        bytes memory signature;
        try this.decodeGatewayResponse(response) returns (bytes memory r, uint64 e, bytes memory sig) {
            (result, expires, signature) = (r, e, sig);
        } catch {
            revert InvalidGatewayResponse();
        }
        if (expires < block.timestamp) revert SignatureExpired(expires);
        address signer = _signer(address(this), expires, extraData, result, signature);
        if (!signers[signer]) signer = _signer(msg.sender, expires, extraData, result, signature);
        if (!signers[signer]) revert UntrustedSigner(signer);
        return result;
    }

    /// @notice `abi.decode(response, (bytes, uint64, bytes))`, external so that garbage is a catchable failure.
    function decodeGatewayResponse(bytes calldata response) external pure returns (bytes memory, uint64, bytes memory) {
        return abi.decode(response, (bytes, uint64, bytes));
    }

    function _signer(
        address target,
        uint64 expires,
        bytes calldata request,
        bytes memory result,
        bytes memory signature
    ) internal pure returns (address signer) {
        bytes32 digest = keccak256(
            abi.encodePacked(hex'1900', target, expires, keccak256(request), keccak256(result))
        );
        (signer, , ) = ECDSA.tryRecover(digest, signature);
    }
}
