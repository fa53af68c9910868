// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title L2Registry
/// @notice One registry per parent name on an L2. Each subname `label.<parent>` is an ERC-721 token whose id is
///         `uint256(node)`, node being the ENS namehash of the full name (as the NameWrapper numbers its tokens), so
///         a gateway answering `addr(node, coinType)` for a name reads the record at the name's own namehash.
///         Records (ENSIP-9/11 addresses by coin type, texts, contenthash) are set by the token's holder or one it
///         approved (ERC-721 `approve` / `setApprovalForAll`); a transfer hands that right over.
///         Controllers (set by the owner, i.e. the parent's owner) register labels with an expiry; an expired name
///         reads as absent (no holder, empty records) and can be registered again with fresh records.
///         Fuses' L2 equivalent: the owner may `revoke` a live subname unless it was registered with
///         PARENT_CANNOT_CONTROL (the NameWrapper fuse bit, 1 << 16).
contract L2Registry is ERC721, Ownable {
    uint32 public constant PARENT_CANNOT_CONTROL = 1 << 16;
    uint256 internal constant ETH_COIN_TYPE = 60;

    /// Namehash of the parent name (e.g. namehash("l2.eth")).
    bytes32 public immutable parentNode;
    /// DNS-encoded parent name, for clients that show the full name.
    bytes public parentName;

    mapping(address => bool) public controllers;
    /// Expiry, fuses and record version of a token, one storage slot. The version is bumped at every registration
    /// (and kept by a revocation) so a re-registered name starts with no records.
    struct Registration {
        uint64 expiry;
        uint32 fuses;
        uint64 recordVersion;
    }

    // The storage layout is an interface: ProvenL2Resolver proves `_owners` (ERC721, slot 2), `_registrations`
    // (slot 9) and the records (slots 11 to 13) at these slots; test/l2-storage-layout.test.ts fails if one moves.
    mapping(uint256 => Registration) internal _registrations;
    mapping(uint256 => string) public labels;
    mapping(bytes32 => mapping(uint256 => mapping(uint256 => bytes))) internal _addrs;
    mapping(bytes32 => mapping(uint256 => mapping(string => string))) internal _texts;
    mapping(bytes32 => mapping(uint256 => bytes)) internal _contenthashes;

    /// The controller that registered `_registeredNode` in this transaction may set its records until the
    /// transaction ends (transient storage, EIP-1153): a mint registers straight to the holder and writes the records
    /// in the same transaction, without holding the token.
    address internal transient _registeringController;
    bytes32 internal transient _registeredNode;

    event ControllerChanged(address indexed controller, bool enabled);
    event NameRegistered(bytes32 indexed node, string label, address indexed owner, uint64 expiry, uint32 fuses);
    event NameRevoked(bytes32 indexed node);
    event AddressChanged(bytes32 indexed node, uint256 coinType, bytes newAddress);
    event AddrChanged(bytes32 indexed node, address a);
    event TextChanged(bytes32 indexed node, string indexed indexedKey, string key, string value);
    event ContenthashChanged(bytes32 indexed node, bytes hash);

    error NotController(address caller);
    error NotAuthorised(bytes32 node, address caller);
    error NameAlreadyExists(bytes32 node);
    error NameExpired(bytes32 node);
    error InvalidExpiry(uint64 expiry);
    error EmptyLabel();
    error ParentCannotControl(bytes32 node);
    error InvalidEvmAddress(bytes value);

    constructor(
        string memory tokenName,
        string memory tokenSymbol,
        bytes32 parentNode_,
        bytes memory parentName_,
        address owner_
    ) ERC721(tokenName, tokenSymbol) Ownable(owner_) {
        parentNode = parentNode_;
        parentName = parentName_;
    }

    modifier onlyController() {
        if (!controllers[msg.sender]) revert NotController(msg.sender);
        _;
    }

    modifier authorised(bytes32 node) {
        uint256 id = uint256(node);
        bool registering = msg.sender == _registeringController && node == _registeredNode;
        if (!_live(id) || !(registering || _isAuthorized(_ownerOf(id), msg.sender, id)))
            revert NotAuthorised(node, msg.sender);
        _;
    }

    function setController(address controller, bool enabled) external onlyOwner {
        controllers[controller] = enabled;
        emit ControllerChanged(controller, enabled);
    }

    // ----- names -----

    function makeNode(string calldata label) public view returns (bytes32) {
        return keccak256(abi.encodePacked(parentNode, keccak256(bytes(label))));
    }

    /// @notice Whether `label` can be registered (never registered, or expired).
    function available(string calldata label) external view returns (bool) {
        return !_live(uint256(makeNode(label)));
    }

    /// @notice Registers `label` to `to` until `expiry` (Unix seconds) and returns its node. Reverts
    ///         `NameAlreadyExists` while a registration is live; an expired one is replaced (records cleared). The
    ///         calling controller may set the new name's records until the end of this transaction.
    function register(
        string calldata label,
        address to,
        uint64 expiry,
        uint32 fuses_
    ) external onlyController returns (bytes32 node) {
        if (bytes(label).length == 0) revert EmptyLabel();
        if (expiry <= block.timestamp) revert InvalidExpiry(expiry);
        node = makeNode(label);
        uint256 id = uint256(node);
        if (_live(id)) revert NameAlreadyExists(node);
        if (_ownerOf(id) != address(0)) _burn(id);
        _registrations[id] = Registration(expiry, fuses_, _registrations[id].recordVersion + 1);
        labels[id] = label;
        (_registeringController, _registeredNode) = (msg.sender, node);
        _safeMint(to, id);
        emit NameRegistered(node, label, to, expiry, fuses_);
    }

    /// @notice The owner (the parent) takes a live subname back, unless it was given PARENT_CANNOT_CONTROL.
    function revoke(bytes32 node) external onlyOwner {
        uint256 id = uint256(node);
        if (!_live(id)) revert NameExpired(node);
        if (_registrations[id].fuses & PARENT_CANNOT_CONTROL != 0) revert ParentCannotControl(node);
        _burn(id);
        Registration storage registration = _registrations[id];
        (registration.expiry, registration.fuses) = (0, 0);
        emit NameRevoked(node);
    }

    /// @notice When `tokenId` expires (Unix seconds; 0: never registered or revoked).
    function expiries(uint256 tokenId) external view returns (uint64) {
        return _registrations[tokenId].expiry;
    }

    /// @notice The fuses `tokenId` was registered with.
    function fuses(uint256 tokenId) external view returns (uint32) {
        return _registrations[tokenId].fuses;
    }

    /// @notice ERC-721 holder; reverts for a name never registered, revoked or expired.
    function ownerOf(uint256 tokenId) public view override returns (address) {
        if (!_live(tokenId)) revert ERC721NonexistentToken(tokenId);
        return super.ownerOf(tokenId);
    }

    /// @notice The holder of `node`, or the zero address when it is not live (the ENS registry's `owner(node)`).
    function owner(bytes32 node) external view returns (address) {
        uint256 id = uint256(node);
        return _live(id) ? _ownerOf(id) : address(0);
    }

    // ----- records -----

    function setAddr(bytes32 node, uint256 coinType, bytes calldata value) external authorised(node) {
        _setAddr(node, coinType, value);
    }

    function setAddr(bytes32 node, address a) external authorised(node) {
        _setAddr(node, ETH_COIN_TYPE, a == address(0) ? bytes("") : abi.encodePacked(a));
    }

    function setText(bytes32 node, string calldata key, string calldata value) external authorised(node) {
        _texts[node][_version(node)][key] = value;
        emit TextChanged(node, key, key, value);
    }

    function setContenthash(bytes32 node, bytes calldata hash) external authorised(node) {
        _contenthashes[node][_version(node)] = hash;
        emit ContenthashChanged(node, hash);
    }

    /// @notice ENSIP-9/11: the address for `coinType`; empty when unset or the name is not live.
    function addr(bytes32 node, uint256 coinType) public view returns (bytes memory) {
        if (!_live(uint256(node))) return "";
        return _addrs[node][_version(node)][coinType];
    }

    function addr(bytes32 node) external view returns (address payable) {
        bytes memory a = addr(node, ETH_COIN_TYPE);
        return a.length == 20 ? payable(address(bytes20(a))) : payable(address(0));
    }

    function text(bytes32 node, string calldata key) external view returns (string memory) {
        if (!_live(uint256(node))) return "";
        return _texts[node][_version(node)][key];
    }

    function contenthash(bytes32 node) external view returns (bytes memory) {
        if (!_live(uint256(node))) return "";
        return _contenthashes[node][_version(node)];
    }

    /// @notice ERC-165: ERC-721 (and metadata) plus the record profiles it answers (addr, ENSIP-11 addr, text,
    ///         contenthash).
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        return
            interfaceId == 0x3b3b57de ||
            interfaceId == 0xf1cb7e06 ||
            interfaceId == 0x59d1d43c ||
            interfaceId == 0xbc1c58d1 ||
            super.supportsInterface(interfaceId);
    }

    // ----- internals -----

    function _setAddr(bytes32 node, uint256 coinType, bytes memory value) internal {
        if (coinType == ETH_COIN_TYPE && value.length != 0 && value.length != 20) revert InvalidEvmAddress(value);
        _addrs[node][_version(node)][coinType] = value;
        emit AddressChanged(node, coinType, value);
        if (coinType == ETH_COIN_TYPE) emit AddrChanged(node, address(bytes20(value)));
    }

    function _version(bytes32 node) internal view returns (uint64) {
        return _registrations[uint256(node)].recordVersion;
    }

    function _live(uint256 id) internal view returns (bool) {
        return _ownerOf(id) != address(0) && _registrations[id].expiry > block.timestamp;
    }

    /// Expired names cannot move; mints and burns (registration, revocation) go through.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address) {
        if (to != address(0) && _ownerOf(tokenId) != address(0) && _registrations[tokenId].expiry <= block.timestamp)
            revert NameExpired(bytes32(tokenId));
        return super._update(to, tokenId, auth);
    }
}
