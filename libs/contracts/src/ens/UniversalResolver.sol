// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IRegistryForUniversalResolver {
    function resolver(bytes32 node) external view returns (address);
}

interface IFeatureSupporterForUniversalResolver {
    function supportsFeature(bytes4 feature) external view returns (bool);
}

/// @notice The published IUniversalResolver; its ERC-165 id is the XOR of these selectors (`0x6cd2d09b`).
interface IUniversalResolver {
    function findResolver(bytes memory name) external view returns (address, bytes32, uint256);

    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory, address);

    function reverse(bytes calldata lookupAddress, uint256 coinType) external view returns (string memory, address, address);
}

/// @title UniversalResolver
/// @notice Our implementation of ENS's IUniversalResolver as mainnet runs it (Universal Resolver v3), written from
///         the published ABI, ENSIP-10, ENSIP-19, ENSIP-21, ENSIP-22 and EIP-3668:
///         - `resolve`/`resolveWithGateways`/`resolveWithResolver`: ENSIP-10 resolver lookup (`requireResolver`),
///           then one call for a resolver that supports ERC-7996 (and, for `multicall(bytes[])` on an extended
///           resolver, the ENSIP-22 RESOLVE_MULTICALL feature); otherwise every call of a multicall is a separate
///           lookup of one batch, whose offchain lookups go to an ENSIP-21 batch gateway in one request
///           (`OffchainLookup` to `gateways` with `query((address,string[],bytes)[])`).
///         - `reverse`/`reverseWithGateways`: ENSIP-19 reverse name per coin type (`<addr>.addr.reverse`,
///           `<addr>.default.reverse`, `<addr>.<coinTypeHex>.reverse`), `name(node)`, then the forward check
///           with `addr(node)` (coin type 60) or `addr(node, coinType)`.
///         Names: a label written `[<64 hex>]` is that label hash (a zero hash is `DNSDecodingFailed`); a label
///         over 255 bytes is DNS-encoded as `[<hex of its keccak256>]`.
///         Batches mark each target's EIP-140 support (FLAG_EIP140_*): a contract without REVERT (pre-EIP-140, it
///         can only fail with INVALID) is called with limited gas and its empty failure reads as "not
///         implemented". Errors and their selectors are the published ones. A single record the resolver does not
///         implement reverts `ResolverError(0x)` (empty revert) or `UnsupportedResolverProfile` (empty answer);
///         in a multicall that slot holds the raw revert data or answer.
contract UniversalResolver is IUniversalResolver {
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);
    error ResolverNotFound(bytes name);
    error ResolverNotContract(bytes name, address resolver);
    error UnsupportedResolverProfile(bytes4 selector);
    error ResolverError(bytes errorData);
    error ReverseAddressMismatch(string primary, bytes primaryAddress);
    error HttpError(uint16 status, string message);
    error DNSDecodingFailed(bytes dns);
    error DNSEncodingFailed(string ens);
    error EmptyAddress();
    error InvalidBatchGatewayResponse();
    error Unauthorized(address caller);

    event BatchGatewaysChanged(string[] gateways);

    /// @dev A usable resolver for a name (`requireResolver`).
    struct ResolverInfo {
        bytes name; // DNS-encoded name
        uint256 offset; // byte offset in `name` of the name the resolver was found on
        bytes32 node; // namehash(name)
        address resolver;
        bool extended; // ENSIP-10 IExtendedResolver
    }

    /// @dev One call of a batch: its target, its calldata, its answer or error, and its state (FLAG_*).
    struct Lookup {
        address target;
        bytes call;
        bytes data;
        uint256 flags;
    }

    struct Batch {
        Lookup[] lookups;
        string[] gateways;
    }

    /// @dev ENSIP-21 batch gateway request: one EIP-3668 request of one lookup.
    struct BatchGatewayRequest {
        address sender;
        string[] urls;
        bytes data;
    }

    struct ReverseArgs {
        bytes lookupAddress;
        uint256 coinType;
        string[] gateways;
        address resolver; // the reverse resolver
    }

    /// @dev The arguments of an EIP-3668 `OffchainLookup` revert.
    struct OffchainLookupParams {
        address sender;
        string[] urls;
        bytes callData;
        bytes4 callbackFunction;
        bytes extraData;
    }

    /// @dev Where a CCIP-Read session goes on after a target's own callback (`ccipReadCallback`).
    struct Continuation {
        address target;
        bytes4 targetCallback;
        bytes targetExtraData;
        bytes4 onSuccess;
        bytes4 onFailure;
        bytes context;
    }

    uint256 internal constant FLAG_OFFCHAIN = 1 << 0;
    uint256 internal constant FLAG_CALL_ERROR = 1 << 1;
    uint256 internal constant FLAG_BATCH_ERROR = 1 << 2;
    uint256 internal constant FLAG_EMPTY_RESPONSE = 1 << 3;
    uint256 internal constant FLAG_EIP140_BEFORE = 1 << 4;
    uint256 internal constant FLAG_EIP140_AFTER = 1 << 5;
    uint256 internal constant FLAG_DONE = 1 << 6;
    uint256 internal constant FLAGS_ANY_ERROR = FLAG_CALL_ERROR | FLAG_BATCH_ERROR | FLAG_EMPTY_RESPONSE;
    uint256 internal constant FLAGS_ANY_EIP140 = FLAG_EIP140_BEFORE | FLAG_EIP140_AFTER;
    /// @dev Gas for a call to a pre-EIP-140 contract, whose INVALID would otherwise burn all gas forwarded.
    uint256 internal constant PRE_EIP140_CALL_GAS = 50000;
    /// @dev Gas an empty call may use before the target counts as pre-EIP-140 (INVALID burns all it is given).
    uint256 internal constant EIP140_PROBE_GAS = 5000;

    bytes4 internal constant NO_CALLBACK = bytes4(0);
    bytes4 internal constant ERC165_ID = 0x01ffc9a7;
    bytes4 internal constant EXTENDED_RESOLVER_ID = 0x9061b923; // resolve(bytes,bytes)
    bytes4 internal constant FEATURE_SUPPORTER_ID = 0x582de3e7; // ERC-7996 supportsFeature(bytes4)
    bytes4 internal constant RESOLVE_MULTICALL = bytes4(keccak256('eth.ens.resolver.extended.multicall'));
    bytes4 internal constant MULTICALL = 0xac9650d8; // multicall(bytes[])
    bytes4 internal constant ADDR = 0x3b3b57de; // addr(bytes32)
    bytes4 internal constant ADDR_COIN = 0xf1cb7e06; // addr(bytes32,uint256)
    bytes4 internal constant NAME = 0x691f3431; // name(bytes32)
    bytes4 internal constant BATCH_QUERY = 0xa780bab6; // query((address,string[],bytes)[])
    uint256 internal constant COIN_TYPE_ETH = 60;
    uint256 internal constant COIN_TYPE_DEFAULT = 0x80000000;

    IRegistryForUniversalResolver public immutable registry;
    address public immutable owner;
    string[] internal _batchGateways;

    constructor(address registry_, string[] memory batchGateways_) {
        registry = IRegistryForUniversalResolver(registry_);
        owner = msg.sender;
        _batchGateways = batchGateways_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == ERC165_ID || interfaceId == type(IUniversalResolver).interfaceId;
    }

    /// @notice The batch gateways `resolve` and `reverse` use.
    function batchGateways() external view returns (string[] memory) {
        return _batchGateways;
    }

    function setBatchGateways(string[] memory gateways) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        _batchGateways = gateways;
        emit BatchGatewaysChanged(gateways);
    }

    // ---- resolver lookup (ENSIP-10) ----

    /// @notice The resolver set on `name` or its closest ancestor below the root, the namehash of `name`, and the
    ///         byte offset in `name` of the label where the resolver was found; `(0, namehash, 0)` when none is.
    ///         No validity checks on the resolver.
    function findResolver(bytes memory name) public view returns (address, bytes32, uint256) {
        return _findResolver(name, 0);
    }

    function _findResolver(bytes memory name, uint256 at) internal view returns (address, bytes32, uint256) {
        (bytes32 labelHash, uint256 next) = _readLabel(name, at);
        if (labelHash == bytes32(0)) return (address(0), bytes32(0), 0);
        (address parentResolver, bytes32 parentNode, uint256 parentOffset) = _findResolver(name, next);
        bytes32 node = keccak256(abi.encodePacked(parentNode, labelHash));
        address own = registry.resolver(node);
        return own != address(0) ? (own, node, at) : (parentResolver, node, parentOffset);
    }

    /// @notice A usable resolver for `name`, or a revert: `ResolverNotFound` (none, or one on an ancestor that
    ///         is not an ENSIP-10 extended resolver), `ResolverNotContract`.
    function requireResolver(bytes memory name) public view returns (ResolverInfo memory info) {
        (info.resolver, info.node, info.offset) = findResolver(name);
        info.name = name;
        _checkResolver(info);
    }

    function _checkResolver(ResolverInfo memory info) internal view {
        if (info.resolver == address(0)) revert ResolverNotFound(info.name);
        if (_supportsInterface(info.resolver, EXTENDED_RESOLVER_ID)) {
            info.extended = true;
        } else if (info.offset != 0) {
            revert ResolverNotFound(info.name);
        } else if (info.resolver.code.length == 0) {
            revert ResolverNotContract(info.name, info.resolver);
        }
    }

    // ---- forward resolution ----

    /// @notice `resolveWithGateways` with this contract's batch gateways.
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory, address) {
        return resolveWithGateways(name, data, _batchGateways);
    }

    /// @notice Resolves `data` (one resolver call, or `multicall(bytes[])` whose answer is `abi.encode(bytes[])`)
    ///         for the DNS-encoded `name`. Callers enable EIP-3668.
    function resolveWithGateways(
        bytes calldata name,
        bytes calldata data,
        string[] memory gateways
    ) public view returns (bytes memory result, address resolver) {
        ResolverInfo memory info = requireResolver(name);
        _callResolver(info, data, gateways, this.resolveCallback.selector, abi.encode(info.resolver));
        return (result, resolver); // not reached: _callResolver returns or reverts for this call
    }

    /// @notice `resolveWithGateways` with a given resolver instead of the registry's.
    function resolveWithResolver(
        address resolver,
        bytes calldata name,
        bytes calldata data,
        string[] memory gateways
    ) external view returns (bytes memory) {
        ResolverInfo memory info;
        info.name = name;
        info.node = _namehash(name, 0);
        info.resolver = resolver;
        _checkResolver(info);
        _callResolver(info, data, gateways, this.resolveCallback.selector, abi.encode(resolver));
        return ''; // not reached
    }

    function resolveCallback(bytes calldata response, bytes calldata extraData) external pure returns (bytes memory, address) {
        return (response, abi.decode(extraData, (address)));
    }

    // ---- reverse resolution (ENSIP-19) ----

    /// @notice `reverseWithGateways` with this contract's batch gateways.
    function reverse(bytes calldata lookupAddress, uint256 coinType) external view returns (string memory, address, address) {
        return reverseWithGateways(lookupAddress, coinType, _batchGateways);
    }

    /// @notice The primary name of `lookupAddress` for `coinType`, verified by forward resolution of the same coin
    ///         type (`ReverseAddressMismatch` otherwise). No name: `("", 0, reverseResolver)`.
    function reverseWithGateways(
        bytes calldata lookupAddress,
        uint256 coinType,
        string[] memory gateways
    ) public view returns (string memory primary, address resolver, address reverseResolver) {
        ResolverInfo memory info = requireResolver(_dnsEncode(_reverseName(lookupAddress, coinType)));
        _callResolver(
            info,
            abi.encodeWithSelector(NAME, info.node),
            gateways,
            this.reverseNameCallback.selector,
            abi.encode(ReverseArgs(lookupAddress, coinType, gateways, info.resolver))
        );
        return (primary, resolver, reverseResolver); // not reached
    }

    function reverseNameCallback(
        bytes calldata response,
        bytes calldata extraData
    ) external view returns (string memory primary, address resolver, address reverseResolver) {
        ReverseArgs memory args = abi.decode(extraData, (ReverseArgs));
        primary = abi.decode(response, (string));
        if (bytes(primary).length == 0) return ('', address(0), args.resolver);
        ResolverInfo memory info = requireResolver(_dnsEncode(primary));
        bytes memory call = args.coinType == COIN_TYPE_ETH
            ? abi.encodeWithSelector(ADDR, info.node)
            : abi.encodeWithSelector(ADDR_COIN, info.node, args.coinType);
        _callResolver(info, call, args.gateways, this.reverseAddressCallback.selector, abi.encode(args, primary, info.resolver));
        return (primary, resolver, reverseResolver); // not reached
    }

    function reverseAddressCallback(
        bytes calldata response,
        bytes calldata extraData
    ) external pure returns (string memory primary, address resolver, address reverseResolver) {
        ReverseArgs memory args;
        (args, primary, resolver) = abi.decode(extraData, (ReverseArgs, string, address));
        bytes memory primaryAddress = args.coinType == COIN_TYPE_ETH
            ? abi.encodePacked(abi.decode(response, (address)))
            : abi.decode(response, (bytes));
        if (keccak256(primaryAddress) != keccak256(args.lookupAddress)) revert ReverseAddressMismatch(primary, primaryAddress);
        reverseResolver = args.resolver;
    }

    // ---- calling a resolver ----

    /// @dev Calls the resolver directly when it supports ERC-7996 (for a multicall: an extended resolver with the
    ///      ENSIP-22 RESOLVE_MULTICALL feature), else through a batch of one lookup per call. Then hands the
    ///      answer to `callback(answer, extraData)` on this contract. Always returns or reverts.
    function _callResolver(
        ResolverInfo memory info,
        bytes memory call,
        string[] memory gateways,
        bytes4 callback,
        bytes memory extraData
    ) internal view {
        bool multi = bytes4(call) == MULTICALL;
        if (
            _supportsInterface(info.resolver, FEATURE_SUPPORTER_ID) &&
            (!multi || (info.extended && _supportsFeature(info.resolver, RESOLVE_MULTICALL)))
        ) {
            _ccipRead(
                info.resolver,
                info.extended ? abi.encodeWithSelector(EXTENDED_RESOLVER_ID, info.name, call) : call,
                this.resolveDirectCallback.selector,
                this.resolveDirectCallbackError.selector,
                abi.encode(info.extended, bytes4(call), callback, extraData)
            );
        }
        bytes[] memory calls;
        if (multi) {
            calls = abi.decode(_slice(call, 4, call.length - 4), (bytes[]));
        } else {
            calls = new bytes[](1);
            calls[0] = call;
        }
        Lookup[] memory lookups = new Lookup[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            lookups[i].target = info.resolver;
            lookups[i].call = info.extended ? abi.encodeWithSelector(EXTENDED_RESOLVER_ID, info.name, calls[i]) : calls[i];
        }
        _ccipRead(
            address(this),
            abi.encodeCall(this.ccipBatch, (Batch(lookups, gateways))),
            this.resolveBatchCallback.selector,
            NO_CALLBACK,
            abi.encode(info.extended, multi, callback, extraData)
        );
    }

    function resolveDirectCallback(bytes memory response, bytes calldata extraData) external view {
        (bool extended, bytes4 selector, bytes4 callback, bytes memory context) = abi.decode(extraData, (bool, bytes4, bytes4, bytes));
        if (response.length == 0) revert UnsupportedResolverProfile(selector);
        if (extended) response = abi.decode(response, (bytes));
        _ccipRead(address(this), abi.encodeWithSelector(callback, response, context), NO_CALLBACK, NO_CALLBACK, '');
    }

    function resolveDirectCallbackError(bytes calldata response, bytes calldata) external pure {
        _revertResolverError(response);
    }

    function resolveBatchCallback(bytes calldata response, bytes calldata extraData) external view {
        Lookup[] memory lookups = abi.decode(response, (Batch)).lookups;
        (bool extended, bool multi, bytes4 callback, bytes memory context) = abi.decode(extraData, (bool, bool, bytes4, bytes));
        bytes memory answer;
        if (multi) {
            bytes[] memory slots = new bytes[](lookups.length);
            for (uint256 i = 0; i < lookups.length; i++) {
                Lookup memory lookup = lookups[i];
                slots[i] = extended && (lookup.flags & FLAGS_ANY_ERROR) == 0 ? abi.decode(lookup.data, (bytes)) : lookup.data;
            }
            answer = abi.encode(slots);
        } else {
            Lookup memory lookup = lookups[0];
            answer = lookup.data;
            if ((lookup.flags & FLAG_BATCH_ERROR) != 0) _revertWith(answer);
            if ((lookup.flags & FLAG_CALL_ERROR) != 0) _revertResolverError(answer);
            if ((lookup.flags & FLAG_EMPTY_RESPONSE) != 0) revert UnsupportedResolverProfile(bytes4(lookup.call));
            if (extended) answer = abi.decode(answer, (bytes));
        }
        _ccipRead(address(this), abi.encodeWithSelector(callback, answer, context), NO_CALLBACK, NO_CALLBACK, '');
    }

    function _revertResolverError(bytes memory data) internal pure {
        if (bytes4(data) == UnsupportedResolverProfile.selector) _revertWith(data);
        revert ResolverError(data);
    }

    // ---- ENSIP-21 batches ----

    /// @notice Runs every lookup of `batch` not yet done; when some asked for offchain data (whoever the
    ///         `OffchainLookup` names as sender), reverts one `OffchainLookup` to the batch gateways with all their
    ///         requests.
    function ccipBatch(Batch memory batch) external view returns (Batch memory) {
        for (uint256 i = 0; i < batch.lookups.length; i++) {
            Lookup memory lookup = batch.lookups[i];
            if ((lookup.flags & FLAG_DONE) != 0) continue;
            if ((lookup.flags & FLAGS_ANY_EIP140) == 0) _markEip140(batch.lookups, i);
            bool modern = (lookup.flags & FLAG_EIP140_AFTER) != 0;
            (bool ok, bytes memory data) = _call(modern, lookup.target, lookup.call);
            lookup.data = data;
            if (!ok && _isOffchainLookup(data)) {
                lookup.flags |= FLAG_OFFCHAIN;
                continue;
            }
            lookup.flags |= FLAG_DONE;
            // A pre-EIP-140 contract fails with no data both when it throws and when it lacks the function:
            // read as the latter.
            if (!ok && (modern || data.length != 0)) lookup.flags |= FLAG_CALL_ERROR;
            if (data.length == 0) lookup.flags |= FLAG_EMPTY_RESPONSE;
        }
        _requestPending(batch);
        return batch;
    }

    /// @notice Applies a batch gateway answer `(bool[] failures, bytes[] responses)`, one entry per pending
    ///         lookup in order: a failure ends the lookup with the gateway's error, a response goes to the
    ///         callback of the lookup's `OffchainLookup` sender (which may ask for more offchain data).
    function ccipBatchCallback(bytes calldata response, bytes calldata extraData) external view returns (Batch memory batch) {
        (bool[] memory failures, bytes[] memory responses) = abi.decode(response, (bool[], bytes[]));
        if (failures.length != responses.length) revert InvalidBatchGatewayResponse();
        batch = abi.decode(extraData, (Batch));
        uint256 next = 0;
        for (uint256 i = 0; i < batch.lookups.length; i++) {
            Lookup memory lookup = batch.lookups[i];
            if ((lookup.flags & FLAG_DONE) != 0) continue;
            if (next >= responses.length) revert InvalidBatchGatewayResponse();
            if (failures[next]) {
                lookup.flags |= FLAG_DONE | FLAG_BATCH_ERROR;
                lookup.data = responses[next];
            } else {
                OffchainLookupParams memory p = _decodeOffchainLookup(lookup.data);
                (bool ok, bytes memory data) = p.sender.staticcall(
                    abi.encodeWithSelector(p.callbackFunction, responses[next], p.extraData)
                );
                lookup.data = data;
                if (ok || !_isOffchainLookup(data)) {
                    lookup.flags |= FLAG_DONE;
                    // The call asked for offchain data, so an empty answer means the callback is missing: an error.
                    if (!ok || data.length == 0) lookup.flags |= FLAG_CALL_ERROR;
                    if (data.length == 0) lookup.flags |= FLAG_EMPTY_RESPONSE;
                }
            }
            next++;
        }
        if (next != responses.length) revert InvalidBatchGatewayResponse();
        _requestPending(batch);
    }

    /// @dev Marks lookup `from` and the later lookups with the same target as pre- or post-EIP-140.
    function _markEip140(Lookup[] memory lookups, uint256 from) internal view {
        address target = lookups[from].target;
        uint256 flag = _hasRevertOpcode(target) ? FLAG_EIP140_AFTER : FLAG_EIP140_BEFORE;
        for (uint256 j = from; j < lookups.length; j++) if (lookups[j].target == target) lookups[j].flags |= flag;
    }

    function _requestPending(Batch memory batch) internal view {
        uint256 pending = 0;
        for (uint256 i = 0; i < batch.lookups.length; i++) if ((batch.lookups[i].flags & FLAG_DONE) == 0) pending++;
        if (pending == 0) return;
        BatchGatewayRequest[] memory requests = new BatchGatewayRequest[](pending);
        uint256 next = 0;
        for (uint256 i = 0; i < batch.lookups.length; i++) {
            if ((batch.lookups[i].flags & FLAG_DONE) != 0) continue;
            OffchainLookupParams memory p = _decodeOffchainLookup(batch.lookups[i].data);
            requests[next++] = BatchGatewayRequest(p.sender, p.urls, p.callData);
        }
        revert OffchainLookup(
            address(this),
            batch.gateways,
            abi.encodeWithSelector(BATCH_QUERY, requests),
            this.ccipBatchCallback.selector,
            abi.encode(batch)
        );
    }

    // ---- EIP-3668 sessions ----

    /// @dev Calls `target`. If it reverts `OffchainLookup` (its own), re-reverts it as this contract's, so that the
    ///      client's answer comes back through `ccipReadCallback`. Otherwise hands the outcome to `onSuccess` or
    ///      `onFailure` (`(bytes data, bytes context)` on this contract; NO_CALLBACK: as is) and returns or reverts
    ///      with what that gives. Never returns to its caller.
    function _ccipRead(address target, bytes memory call, bytes4 onSuccess, bytes4 onFailure, bytes memory context) internal view {
        (bool ok, bytes memory data) = _call(target == address(this) || _hasRevertOpcode(target), target, call);
        if (!ok && _isOffchainLookup(data)) {
            OffchainLookupParams memory p = _decodeOffchainLookup(data);
            if (p.sender == target) {
                revert OffchainLookup(
                    address(this),
                    p.urls,
                    p.callData,
                    this.ccipReadCallback.selector,
                    abi.encode(Continuation(target, p.callbackFunction, p.extraData, onSuccess, onFailure, context))
                );
            }
        }
        bytes4 next = ok ? onSuccess : onFailure;
        if (next != NO_CALLBACK) (ok, data) = address(this).staticcall(abi.encodeWithSelector(next, data, context));
        if (ok) {
            assembly {
                return(add(data, 32), mload(data))
            }
        }
        _revertWith(data);
    }

    function ccipReadCallback(bytes calldata response, bytes calldata extraData) external view {
        Continuation memory c = abi.decode(extraData, (Continuation));
        _ccipRead(c.target, abi.encodeWithSelector(c.targetCallback, response, c.targetExtraData), c.onSuccess, c.onFailure, c.context);
    }

    function _isOffchainLookup(bytes memory data) internal pure returns (bool) {
        return data.length >= 4 && bytes4(data) == OffchainLookup.selector;
    }

    /// @dev Whether `target` fails with REVERT (EIP-140) rather than INVALID, which burns all gas it is given: an
    ///      empty call using less than the probe's gas.
    function _hasRevertOpcode(address target) internal view returns (bool has) {
        uint256 probeGas = EIP140_PROBE_GAS;
        assembly {
            let before := gas()
            pop(staticcall(probeGas, target, 0, 0, 0, 0))
            has := lt(sub(before, gas()), probeGas)
        }
    }

    /// @dev A staticcall with all gas left, or PRE_EIP140_CALL_GAS for a target without REVERT.
    function _call(bool modern, address target, bytes memory call) internal view returns (bool, bytes memory) {
        return target.staticcall{gas: modern ? gasleft() : PRE_EIP140_CALL_GAS}(call);
    }

    function _decodeOffchainLookup(bytes memory data) internal pure returns (OffchainLookupParams memory p) {
        (p.sender, p.urls, p.callData, p.callbackFunction, p.extraData) = abi.decode(
            _slice(data, 4, data.length - 4),
            (address, string[], bytes, bytes4, bytes)
        );
    }

    function _supportsInterface(address target, bytes4 interfaceId) internal view returns (bool) {
        (bool ok, bytes memory data) = target.staticcall{gas: 30000}(abi.encodeWithSelector(ERC165_ID, interfaceId));
        return ok && data.length >= 32 && abi.decode(data, (bool));
    }

    function _supportsFeature(address target, bytes4 feature) internal view returns (bool) {
        (bool ok, bytes memory data) = target.staticcall{gas: 30000}(
            abi.encodeCall(IFeatureSupporterForUniversalResolver.supportsFeature, (feature))
        );
        return ok && data.length >= 32 && abi.decode(data, (bool));
    }

    function _revertWith(bytes memory data) internal pure {
        assembly {
            revert(add(data, 32), mload(data))
        }
    }

    // ---- names ----

    function _slice(bytes memory data, uint256 from, uint256 size) internal pure returns (bytes memory out) {
        out = new bytes(size);
        for (uint256 i = 0; i < size; i++) out[i] = data[i + from];
    }

    function _keccak(bytes memory data, uint256 from, uint256 size) internal pure returns (bytes32 hash) {
        assembly {
            hash := keccak256(add(add(data, 32), from), size)
        }
    }

    function _namehash(bytes memory name, uint256 at) internal pure returns (bytes32) {
        (bytes32 labelHash, uint256 next) = _readLabel(name, at);
        if (labelHash == bytes32(0)) return bytes32(0);
        return keccak256(abi.encodePacked(_namehash(name, next), labelHash));
    }

    /// @dev The label hash of the DNS-encoded label at `at` (zero for the root, which must end `name`) and the
    ///      offset of the next label. A 66-byte label `[<64 hex>]` is the label hash it spells.
    function _readLabel(bytes memory name, uint256 at) internal pure returns (bytes32 labelHash, uint256 next) {
        if (at >= name.length) revert DNSDecodingFailed(name);
        uint256 size = uint8(name[at]);
        next = at + 1 + size;
        if (size == 0 ? next != name.length : next >= name.length) revert DNSDecodingFailed(name);
        if (size == 0) return (bytes32(0), next);
        if (size == 66 && name[at + 1] == '[' && name[next - 1] == ']') {
            bool valid;
            (labelHash, valid) = _parseHash(name, at + 2);
            if (!valid || labelHash == bytes32(0)) revert DNSDecodingFailed(name);
        } else {
            labelHash = _keccak(name, at + 1, size);
        }
    }

    /// @dev The 64 hex digits (either case) at `from` as a bytes32.
    function _parseHash(bytes memory data, uint256 from) internal pure returns (bytes32, bool) {
        uint256 value = 0;
        for (uint256 i = from; i < from + 64; i++) {
            uint8 c = uint8(data[i]);
            uint8 digit;
            if (c >= 0x30 && c <= 0x39) digit = c - 0x30;
            else if (c >= 0x61 && c <= 0x66) digit = c - 0x57;
            else if (c >= 0x41 && c <= 0x46) digit = c - 0x37;
            else return (bytes32(0), false);
            value = (value << 4) | digit;
        }
        return (bytes32(value), true);
    }

    /// @dev `a.b.eth` → `\x01a\x01b\x03eth\x00`; a label over 255 bytes becomes `[<hex of its keccak256>]`; an
    ///      empty label reverts DNSEncodingFailed.
    function _dnsEncode(string memory name) internal pure returns (bytes memory out) {
        bytes memory s = bytes(name);
        uint256 labelStart = 0;
        for (uint256 i = 0; i <= s.length; i++) {
            if (i < s.length && s[i] != '.') continue;
            uint256 size = i - labelStart;
            if (size == 0) revert DNSEncodingFailed(name);
            if (size > 255) {
                bytes memory hashed = abi.encodePacked('[', _hexBytes(abi.encodePacked(_keccak(s, labelStart, size))), ']');
                out = abi.encodePacked(out, uint8(hashed.length), hashed);
            } else {
                out = abi.encodePacked(out, uint8(size), _slice(s, labelStart, size));
            }
            labelStart = i + 1;
        }
        out = abi.encodePacked(out, uint8(0));
    }

    /// @dev ENSIP-19: `<hex address>.addr.reverse` (coin type 60), `<hex>.default.reverse` (0x80000000), else
    ///      `<hex>.<coin type in hex, no leading zeros>.reverse`.
    function _reverseName(bytes memory lookupAddress, uint256 coinType) internal pure returns (string memory) {
        if (lookupAddress.length == 0) revert EmptyAddress();
        string memory namespace = coinType == COIN_TYPE_ETH
            ? 'addr'
            : coinType == COIN_TYPE_DEFAULT
                ? 'default'
                : _hexNumber(coinType);
        return string.concat(_hexBytes(lookupAddress), '.', namespace, '.reverse');
    }

    function _hexBytes(bytes memory data) internal pure returns (string memory) {
        bytes16 digits = '0123456789abcdef';
        bytes memory out = new bytes(data.length * 2);
        for (uint256 i = 0; i < data.length; i++) {
            out[2 * i] = digits[uint8(data[i]) >> 4];
            out[2 * i + 1] = digits[uint8(data[i]) & 0x0f];
        }
        return string(out);
    }

    function _hexNumber(uint256 value) internal pure returns (string memory) {
        if (value == 0) return '0';
        bytes16 digits = '0123456789abcdef';
        uint256 size = 0;
        for (uint256 v = value; v != 0; v >>= 4) size++;
        bytes memory out = new bytes(size);
        for (uint256 i = size; i > 0; i--) {
            out[i - 1] = digits[value & 0x0f];
            value >>= 4;
        }
        return string(out);
    }
}
