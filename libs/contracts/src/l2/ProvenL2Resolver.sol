// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {GatewayFetcher} from "@unruggable/gateways/contracts/GatewayFetcher.sol";
import {GatewayFetchTarget} from "@unruggable/gateways/contracts/GatewayFetchTarget.sol";
import {GatewayRequest} from "@unruggable/gateways/contracts/GatewayRequest.sol";
import {IGatewayVerifier} from "@unruggable/gateways/contracts/IGatewayVerifier.sol";
import {ExtendedResolverFeatures} from "../ens/ExtendedResolverFeatures.sol";

/// @title ProvenL2Resolver
/// @notice L1 resolver of a parent whose subnames live in an L2Registry, answering only what it verified: every
///         `resolve(name, data)` (one record, or ENSIP-22 `multicall(bytes[])` for a whole profile) raises one
///         EIP-3668 lookup through the Unruggable Gateways fetch target (`proveRequest(context, request)`), and the
///         callback has `verifier` check the gateway's Merkle-Patricia proofs of the registry's storage against the
///         L2 state the rollup committed on L1 (the verifier reads the commitment from the rollup's own L1
///         contracts). No signature is on the path: a gateway can withhold an answer, not change one.
///         Proven per lookup: the holder (`_owners[id]`), the registration (expiry, fuses, record version) and each
///         asked record at that version. A name that is not live (never registered, revoked, expired by this chain's
///         clock) answers empty records.
contract ProvenL2Resolver is GatewayFetchTarget, ExtendedResolverFeatures {
    using GatewayFetcher for GatewayRequest;

    // L2Registry's storage (test/l2-storage-layout.test.ts checks these against solc's layout).
    uint256 internal constant OWNERS_SLOT = 2;
    uint256 internal constant REGISTRATIONS_SLOT = 9;
    uint256 internal constant ADDRS_SLOT = 11;
    uint256 internal constant TEXTS_SLOT = 12;
    uint256 internal constant CONTENTHASHES_SLOT = 13;
    /// Bit offset of `recordVersion` in a registration's slot (after uint64 expiry and uint32 fuses).
    uint8 internal constant RECORD_VERSION_SHIFT = 96;
    uint256 internal constant ETH_COIN_TYPE = 60;
    /// Holder and registration come first; a request has at most 255 outputs.
    uint256 internal constant MAX_CALLS = 253;

    bytes4 internal constant MULTICALL = 0xac9650d8; // multicall(bytes[])
    bytes4 internal constant ADDR = 0x3b3b57de; // addr(bytes32)
    bytes4 internal constant ADDR_COIN = 0xf1cb7e06; // addr(bytes32,uint256)
    bytes4 internal constant TEXT = 0x59d1d43c; // text(bytes32,string)
    bytes4 internal constant CONTENTHASH = 0xbc1c58d1; // contenthash(bytes32)

    IGatewayVerifier public immutable verifier;
    uint256 public immutable l2ChainId;
    address public immutable l2Registry;
    address public immutable owner;
    /// Where the lookups go; empty: the verifier's gateway URLs.
    string[] internal _gatewayUrls;

    event GatewayUrlsChanged(string[] urls);

    error Unauthorized(address caller);
    error TooManyCalls(uint256 count);

    constructor(IGatewayVerifier verifier_, uint256 l2ChainId_, address l2Registry_, string[] memory gatewayUrls_) {
        verifier = verifier_;
        l2ChainId = l2ChainId_;
        l2Registry = l2Registry_;
        owner = msg.sender;
        _gatewayUrls = gatewayUrls_;
    }

    /// @notice Points the lookups at other provers (anyone may run one: they cannot change an answer).
    function setGatewayUrls(string[] memory urls) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        _gatewayUrls = urls;
        emit GatewayUrlsChanged(urls);
    }

    function gatewayUrls() external view returns (string[] memory) {
        return _gatewayUrls;
    }

    /// @notice ENSIP-10: always an `OffchainLookup` for the proofs of `data`'s records of `name` (its node is the
    ///         name's namehash, whatever node the calls carry).
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory) {
        bool isMulticall = data.length >= 4 && bytes4(data[:4]) == MULTICALL;
        bytes[] memory calls;
        if (isMulticall) {
            calls = abi.decode(data[4:], (bytes[]));
        } else {
            calls = new bytes[](1);
            calls[0] = data;
        }
        if (calls.length > MAX_CALLS) revert TooManyCalls(calls.length);
        bytes32 node = _namehash(name, 0);
        GatewayRequest memory req = GatewayFetcher.newRequest(uint8(calls.length + 2));
        req.setTarget(l2Registry);
        req.setSlot(OWNERS_SLOT).push(node).follow().read().setOutput(0);
        req.setSlot(REGISTRATIONS_SLOT).push(node).follow().read().setOutput(1);
        for (uint256 i = 0; i < calls.length; i++) _requestRecord(req, node, calls[i], uint8(i + 2));
        fetch(verifier, req, this.resolveCallback.selector, abi.encode(calls, isMulticall), _gatewayUrls);
    }

    /// @notice Called by the fetch target with the values the verifier proved: the answer of `resolve`.
    function resolveCallback(
        bytes[] calldata values,
        uint8,
        bytes calldata carry
    ) external view returns (bytes memory) {
        if (msg.sender != address(this)) revert Unauthorized(msg.sender);
        (bytes[] memory calls, bool isMulticall) = abi.decode(carry, (bytes[], bool));
        address holder = address(uint160(uint256(bytes32(values[0]))));
        uint64 expiry = uint64(uint256(bytes32(values[1])));
        bool live = holder != address(0) && expiry > block.timestamp;
        bytes[] memory answers = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) answers[i] = _answer(calls[i], live ? values[i + 2] : bytes(""));
        return isMulticall ? abi.encode(answers) : answers[0];
    }

    /// Adds the proof of `call`'s record (at the proven registration's version) as output `output`; a call this
    /// resolver does not answer adds nothing (its answer is empty).
    function _requestRecord(GatewayRequest memory req, bytes32 node, bytes memory request, uint8 output) internal pure {
        bytes4 selector = _selector(request);
        if (selector == ADDR) {
            _atVersion(req, ADDRS_SLOT, node).push(ETH_COIN_TYPE).follow();
        } else if (selector == ADDR_COIN) {
            (, uint256 coinType) = abi.decode(_args(request), (bytes32, uint256));
            _atVersion(req, ADDRS_SLOT, node).push(coinType).follow();
        } else if (selector == TEXT) {
            (, string memory key) = abi.decode(_args(request), (bytes32, string));
            _atVersion(req, TEXTS_SLOT, node).push(bytes(key)).follow();
        } else if (selector == CONTENTHASH) {
            _atVersion(req, CONTENTHASHES_SLOT, node);
        } else {
            return;
        }
        req.readBytes().setOutput(output);
    }

    /// `mapping(bytes32 node => mapping(uint256 version => ...))` at `slot`, at the version in output 1.
    function _atVersion(
        GatewayRequest memory req,
        uint256 slot,
        bytes32 node
    ) internal pure returns (GatewayRequest memory) {
        return req.setSlot(slot).push(node).follow().pushOutput(1).shr(RECORD_VERSION_SHIFT).follow();
    }

    function _answer(bytes memory request, bytes memory value) internal pure returns (bytes memory) {
        bytes4 selector = _selector(request);
        if (selector == ADDR) return abi.encode(value.length == 20 ? address(bytes20(value)) : address(0));
        if (selector == ADDR_COIN || selector == CONTENTHASH) return abi.encode(value);
        if (selector == TEXT) return abi.encode(string(value));
        return "";
    }

    function _selector(bytes memory request) internal pure returns (bytes4 selector) {
        if (request.length < 4) return bytes4(0);
        assembly {
            selector := mload(add(request, 32))
        }
    }

    function _args(bytes memory request) internal pure returns (bytes memory args) {
        args = new bytes(request.length - 4);
        for (uint256 i = 0; i < args.length; i++) args[i] = request[i + 4];
    }

    function _namehash(bytes calldata name, uint256 offset) internal pure returns (bytes32) {
        uint256 len = uint8(name[offset]);
        if (len == 0) return bytes32(0);
        bytes32 labelhash = keccak256(name[offset + 1:offset + 1 + len]);
        return keccak256(abi.encodePacked(_namehash(name, offset + 1 + len), labelhash));
    }
}
