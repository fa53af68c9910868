// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IENSRegistryForUR {
    function resolver(bytes32 node) external view returns (address);
}

interface IExtendedResolverForUR {
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory);
}

/// @title UniversalResolverTestDouble
/// @notice A small stand-in for ENS's UniversalResolver, deployable against our local registry. It keeps the
///         real contract's names and selectors for what it implements: `findResolver`, `resolve(bytes,bytes)`
///         (ENSIP-10 wildcard, EIP-3668 CCIP-Read through `resolveCallback`), `reverse(bytes,uint256)` for
///         coin type 60 (ENSIP-19 semantics, CCIP-Read on the forward step through `reverseCallback`), and the
///         errors `ResolverNotFound`, `ResolverNotContract`, `ResolverError`, `ReverseAddressMismatch`,
///         `UnsupportedResolverProfile`. Unlike the real one it has no batch gateway: an extended resolver
///         receives a `multicall` as one `resolve` call; for a non-extended resolver each `multicall` slot is the
///         answer or the sub-call's raw revert data, as in the real one.
contract UniversalResolverTestDouble {
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);
    error ResolverNotFound(bytes name);
    error ResolverNotContract(bytes name, address resolver);
    error UnsupportedResolverProfile(bytes4 selector);
    error ResolverError(bytes errorData);
    error ReverseAddressMismatch(string primary, bytes primaryAddress);

    bytes4 internal constant EXTENDED_RESOLVER = 0x9061b923;
    bytes4 internal constant MULTICALL = 0xac9650d8;
    bytes4 internal constant ADDR = 0x3b3b57de; // addr(bytes32)
    bytes4 internal constant NAME = 0x691f3431; // name(bytes32)
    uint256 internal constant COIN_TYPE_ETH = 60;

    IENSRegistryForUR public immutable registry;

    constructor(address registry_) {
        registry = IENSRegistryForUR(registry_);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7;
    }

    /// @notice The first resolver set on `name` or an ancestor (ENSIP-10 walk), with the namehash of `name`
    ///         and the offset in `name` of the label where it was found.
    function findResolver(bytes memory name) public view returns (address resolver, bytes32 node, uint256 offset) {
        (resolver, node, offset) = _findResolver(name, 0);
    }

    function _findResolver(bytes memory name, uint256 at) internal view returns (address, bytes32, uint256) {
        uint256 len = uint8(name[at]);
        if (len == 0) return (registry.resolver(bytes32(0)), bytes32(0), at);
        (address parentResolver, bytes32 parentNode, uint256 parentOffset) = _findResolver(name, at + 1 + len);
        bytes32 node = keccak256(abi.encodePacked(parentNode, _labelhash(name, at, len)));
        address own = registry.resolver(node);
        if (own != address(0)) return (own, node, at);
        return (parentResolver, node, parentOffset);
    }

    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory, address) {
        (address resolver, bool extended) = _requireResolver(name);
        bytes memory result = _callResolver(resolver, extended, name, data, this.resolveCallback.selector, '');
        return (result, resolver);
    }

    function resolveCallback(bytes calldata response, bytes calldata extraData) external view returns (bytes memory, address) {
        (bytes memory result, address resolver, ) = _finishLookup(response, extraData);
        return (result, resolver);
    }

    /// @notice Primary name of `lookupAddress` (20 bytes) for coin type 60, verified by forward resolution.
    ///         No reverse record: empty `primary`.
    function reverse(
        bytes calldata lookupAddress,
        uint256 coinType
    ) external view returns (string memory primary, address resolver, address reverseResolver) {
        if (coinType != COIN_TYPE_ETH || lookupAddress.length != 20) revert UnsupportedResolverProfile(NAME);
        bytes memory reverseName = _reverseName(lookupAddress);
        bool reverseExtended;
        (reverseResolver, reverseExtended) = _findUsableResolver(reverseName);
        if (reverseResolver == address(0)) return ('', address(0), address(0));
        bytes32 reverseNode = _namehash(reverseName, 0);
        bytes memory nameResult = _callResolver(
            reverseResolver,
            reverseExtended,
            reverseName,
            abi.encodeWithSelector(NAME, reverseNode),
            this.resolveCallback.selector,
            ''
        );
        primary = nameResult.length == 0 ? '' : abi.decode(nameResult, (string));
        if (bytes(primary).length == 0) return ('', address(0), reverseResolver);
        resolver = _verifyForward(lookupAddress, primary, reverseResolver);
    }

    function _verifyForward(
        bytes calldata lookupAddress,
        string memory primary,
        address reverseResolver
    ) internal view returns (address resolver) {
        bytes memory forwardName = _dnsEncode(primary);
        bool extended;
        (resolver, extended) = _findUsableResolver(forwardName);
        if (resolver == address(0)) revert ReverseAddressMismatch(primary, '');
        bytes memory addrResult = _callResolver(
            resolver,
            extended,
            forwardName,
            abi.encodeWithSelector(ADDR, _namehash(forwardName, 0)),
            this.reverseCallback.selector,
            abi.encode(lookupAddress, primary, reverseResolver)
        );
        _checkForward(lookupAddress, primary, addrResult);
    }

    function reverseCallback(
        bytes calldata response,
        bytes calldata extraData
    ) external view returns (string memory primary, address resolver, address reverseResolver) {
        bytes memory result;
        bytes memory context;
        (result, resolver, context) = _finishLookup(response, extraData);
        bytes memory lookupAddress;
        (lookupAddress, primary, reverseResolver) = abi.decode(context, (bytes, string, address));
        _checkForward(lookupAddress, primary, result);
    }

    function _checkForward(bytes memory lookupAddress, string memory primary, bytes memory addrResult) internal pure {
        bytes memory primaryAddress = addrResult.length == 32
            ? abi.encodePacked(abi.decode(addrResult, (address)))
            : bytes('');
        if (keccak256(primaryAddress) != keccak256(lookupAddress)) revert ReverseAddressMismatch(primary, primaryAddress);
    }

    // ---- resolver lookup and calls ----

    function _findUsableResolver(bytes memory name) internal view returns (address resolver, bool extended) {
        (address found, , uint256 offset) = _findResolver(name, 0);
        if (found == address(0)) return (address(0), false);
        if (found.code.length == 0) revert ResolverNotContract(name, found);
        extended = _supportsInterface(found, EXTENDED_RESOLVER);
        if (offset != 0 && !extended) return (address(0), false);
        return (found, extended);
    }

    function _requireResolver(bytes memory name) internal view returns (address resolver, bool extended) {
        (resolver, extended) = _findUsableResolver(name);
        if (resolver == address(0)) revert ResolverNotFound(name);
    }

    function _callResolver(
        address resolver,
        bool extended,
        bytes memory name,
        bytes memory data,
        bytes4 outerCallback,
        bytes memory context
    ) internal view returns (bytes memory) {
        if (!extended && data.length >= 4 && bytes4(data) == MULTICALL) return _multicall(resolver, data);
        bytes memory callData = extended ? abi.encodeCall(IExtendedResolverForUR.resolve, (name, data)) : data;
        (bool ok, bytes memory ret) = resolver.staticcall(callData);
        // An empty revert on the first call means the resolver does not implement this profile (not a failure).
        if (!ok && ret.length == 0) revert UnsupportedResolverProfile(bytes4(data));
        if (!ok) _handleRevert(resolver, extended, ret, outerCallback, context);
        return extended ? abi.decode(ret, (bytes)) : ret;
    }

    /// Runs each call of `multicall(bytes[])` against a non-extended resolver. Like the real one's batch
    /// (CCIPBatcher), each slot is the answer, or the call's raw revert data (`0x` for an empty revert, e.g.
    /// a resolver without that function), or the call's own 4-byte selector when it answered nothing.
    function _multicall(address resolver, bytes memory data) internal view returns (bytes memory) {
        bytes[] memory calls = abi.decode(_stripSelector(data), (bytes[]));
        bytes[] memory results = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = resolver.staticcall(calls[i]);
            results[i] = ok && ret.length == 0 ? abi.encodePacked(bytes4(calls[i])) : ret;
        }
        return abi.encode(results);
    }

    function _handleRevert(
        address resolver,
        bool extended,
        bytes memory ret,
        bytes4 outerCallback,
        bytes memory context
    ) internal view {
        if (ret.length >= 4 && bytes4(ret) == OffchainLookup.selector) {
            (address sender, string[] memory urls, bytes memory callData, bytes4 callback, bytes memory extraData) = abi
                .decode(_stripSelector(ret), (address, string[], bytes, bytes4, bytes));
            if (sender != resolver) revert ResolverError(ret);
            revert OffchainLookup(
                address(this),
                urls,
                callData,
                outerCallback,
                abi.encode(resolver, extended, callback, extraData, context)
            );
        }
        revert ResolverError(ret);
    }

    function _finishLookup(
        bytes calldata response,
        bytes calldata extraData
    ) internal view returns (bytes memory result, address resolver, bytes memory context) {
        bool extended;
        bytes4 callback;
        bytes memory innerExtraData;
        (resolver, extended, callback, innerExtraData, context) = abi.decode(
            extraData,
            (address, bool, bytes4, bytes, bytes)
        );
        (bool ok, bytes memory ret) = resolver.staticcall(abi.encodeWithSelector(callback, response, innerExtraData));
        if (!ok) _handleRevert(resolver, extended, ret, msg.sig, context);
        result = extended ? abi.decode(ret, (bytes)) : ret;
    }

    function _supportsInterface(address target, bytes4 interfaceId) internal view returns (bool) {
        (bool ok, bytes memory ret) = target.staticcall{gas: 30000}(
            abi.encodeWithSelector(0x01ffc9a7, interfaceId)
        );
        return ok && ret.length >= 32 && abi.decode(ret, (bool));
    }

    // ---- names ----

    function _stripSelector(bytes memory data) internal pure returns (bytes memory out) {
        out = new bytes(data.length - 4);
        for (uint256 i = 0; i < out.length; i++) out[i] = data[i + 4];
    }

    function _labelhash(bytes memory name, uint256 at, uint256 len) internal pure returns (bytes32 hash) {
        assembly {
            hash := keccak256(add(add(name, 33), at), len)
        }
    }

    function _namehash(bytes memory name, uint256 at) internal pure returns (bytes32) {
        uint256 len = uint8(name[at]);
        if (len == 0) return bytes32(0);
        return keccak256(abi.encodePacked(_namehash(name, at + 1 + len), _labelhash(name, at, len)));
    }

    function _dnsEncode(string memory name) internal pure returns (bytes memory out) {
        bytes memory s = bytes(name);
        out = new bytes(s.length + 2);
        uint256 labelStart = 0;
        for (uint256 i = 0; i <= s.length; i++) {
            if (i == s.length || s[i] == '.') {
                uint256 len = i - labelStart;
                if (len == 0 || len > 255) revert ResolverNotFound(s);
                out[labelStart] = bytes1(uint8(len));
                for (uint256 j = labelStart; j < i; j++) out[j + 1] = s[j];
                labelStart = i + 1;
            }
        }
        out[s.length + 1] = 0x00;
    }

    function _reverseName(bytes calldata addr) internal pure returns (bytes memory) {
        bytes16 hexChars = '0123456789abcdef';
        bytes memory label = new bytes(40);
        for (uint256 i = 0; i < 20; i++) {
            label[2 * i] = hexChars[uint8(addr[i]) >> 4];
            label[2 * i + 1] = hexChars[uint8(addr[i]) & 0x0f];
        }
        return abi.encodePacked(uint8(40), label, uint8(4), 'addr', uint8(7), 'reverse', uint8(0));
    }
}
