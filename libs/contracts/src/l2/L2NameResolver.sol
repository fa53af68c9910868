// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title L2NameResolver
/// @notice L1 resolver of a parent whose subnames live in an L2Registry. ENSIP-10 extended resolver: every
///         `resolve(name, data)` (any record of any subname, or ENSIP-22 `multicall(bytes[])` for a whole profile)
///         reverts an EIP-3668 `OffchainLookup` to the gateway, which reads the registry `l2Registry` on chain
///         `l2ChainId` and answers `abi.encode(bytes result, uint64 expires, bytes sig)`, `sig` by a trusted signer
///         over `keccak256(0x1900 ‖ target ‖ uint64 expires ‖ keccak256(request) ‖ keccak256(result))`: the request
///         and digest of SignedOffchainResolver, so one gateway signing path serves offchain and L2 names.
///         `target` is this contract or the caller of the callback (a universal resolver re-raises the lookup as its
///         own sender, and the gateway signs for the sender it sees). The URL names the registry to the gateway;
///         `l2ChainId` and `l2Registry` say on chain which one it must be.
contract L2NameResolver {
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);
    error SignatureExpired(uint64 expires);
    error UntrustedSigner(address signer);
    error InvalidGatewayResponse();
    error Unauthorized(address caller);

    event SignersChanged(address[] signers, bool trusted);
    event UrlChanged(string url);

    bytes4 internal constant ERC165_ID = 0x01ffc9a7;
    bytes4 internal constant EXTENDED_RESOLVER_ID = 0x9061b923; // resolve(bytes,bytes)
    bytes4 internal constant FEATURE_SUPPORTER_ID = 0x582de3e7; // ERC-7996 supportsFeature(bytes4)
    bytes4 internal constant RESOLVE_MULTICALL = bytes4(keccak256("eth.ens.resolver.extended.multicall"));

    uint256 public immutable l2ChainId;
    address public immutable l2Registry;
    address public immutable owner;
    string public url;
    mapping(address => bool) public signers;

    constructor(string memory url_, address[] memory signers_, uint256 l2ChainId_, address l2Registry_) {
        url = url_;
        owner = msg.sender;
        l2ChainId = l2ChainId_;
        l2Registry = l2Registry_;
        _setSigners(signers_, true);
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        _;
    }

    function setSigners(address[] calldata signers_, bool trusted) external onlyOwner {
        _setSigners(signers_, trusted);
    }

    function setUrl(string calldata url_) external onlyOwner {
        url = url_;
        emit UrlChanged(url_);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == ERC165_ID || interfaceId == EXTENDED_RESOLVER_ID || interfaceId == FEATURE_SUPPORTER_ID;
    }

    /// @notice ENSIP-22 features: RESOLVE_MULTICALL (one gateway request answers a whole profile).
    function supportsFeature(bytes4 feature) external pure returns (bool) {
        return feature == RESOLVE_MULTICALL;
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
        try this.decodeGatewayResponse(response) returns (bytes memory r, uint64 e, bytes memory s) {
            (result, expires, signature) = (r, e, s);
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

    function _setSigners(address[] memory signers_, bool trusted) internal {
        for (uint256 i = 0; i < signers_.length; i++) signers[signers_[i]] = trusted;
        emit SignersChanged(signers_, trusted);
    }

    function _signer(
        address target,
        uint64 expires,
        bytes calldata request,
        bytes memory result,
        bytes memory signature
    ) internal pure returns (address signer) {
        bytes32 digest = keccak256(abi.encodePacked(hex"1900", target, expires, keccak256(request), keccak256(result)));
        (signer, , ) = ECDSA.tryRecover(digest, signature);
    }
}
