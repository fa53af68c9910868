// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IENSRegistryForWrapper {
    function owner(bytes32 node) external view returns (address);
    function resolver(bytes32 node) external view returns (address);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function setOwner(bytes32 node, address owner) external;
    function setResolver(bytes32 node, address resolver) external;
    function setSubnodeOwner(bytes32 node, bytes32 label, address owner) external returns (bytes32);
    function setSubnodeRecord(bytes32 node, bytes32 label, address owner, address resolver, uint64 ttl) external;
}

interface IBaseRegistrarForWrapper {
    function ownerOf(uint256 tokenId) external view returns (address);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function transferFrom(address from, address to, uint256 tokenId) external;
    function reclaim(uint256 id, address owner) external;
    function nameExpires(uint256 id) external view returns (uint256);
}

interface IAuthorisingResolver {
    function setAuthorisation(bytes32 node, address target, bool isAuthorised) external;
}

/// @title NameWrapperTestDouble
/// @notice A small stand-in for ENS's NameWrapper (no npm artifact of it exists that deploys against the
///         registry we use). It follows the real public interface for the subset the platform reads and
///         tests need: tokens are ERC-1155 ids = uint256(namehash), `names(node)` holds the DNS-encoded
///         name, `getData` returns (owner, fuses, expiry). Fuses are stored but not enforced, there is no
///         ERC-1155 receiver check, and `wrap` works for any name the caller owns in the registry (the
///         real contract wraps .eth 2LDs through the registrar with `wrapETH2LD`).
contract NameWrapperTestDouble {
    event NameWrapped(bytes32 indexed node, bytes name, address owner, uint32 fuses, uint64 expiry);
    event NameUnwrapped(bytes32 indexed node, address owner);
    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(
        address indexed operator,
        address indexed from,
        address indexed to,
        uint256[] ids,
        uint256[] values
    );
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);

    error Unauthorised(bytes32 node, address addr);
    error IncorrectTargetOwner(address owner);

    IENSRegistryForWrapper public immutable ens;

    mapping(bytes32 => bytes) public names;
    mapping(uint256 => address) internal _owners;
    mapping(uint256 => uint32) internal _fuses;
    mapping(uint256 => uint64) internal _expiries;
    mapping(address => mapping(address => bool)) internal _approvals;

    constructor(address registry) {
        ens = IENSRegistryForWrapper(registry);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0xd9b67a26 || interfaceId == 0x0e89341c;
    }

    function ownerOf(uint256 id) public view returns (address) {
        return _owners[id];
    }

    function getData(uint256 id) external view returns (address owner, uint32 fuses, uint64 expiry) {
        return (_owners[id], _fuses[id], _expiries[id]);
    }

    function balanceOf(address account, uint256 id) external view returns (uint256) {
        return _owners[id] == account && account != address(0) ? 1 : 0;
    }

    function isWrapped(bytes32 node) external view returns (bool) {
        return _owners[uint256(node)] != address(0) && ens.owner(node) == address(this);
    }

    function isApprovedForAll(address account, address operator) public view returns (bool) {
        return _approvals[account][operator];
    }

    function setApprovalForAll(address operator, bool approved) external {
        _approvals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// @notice ERC-1155 transfer of one name token (amount 1) by its owner or an approved operator.
    function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes calldata) external {
        _transfer(from, to, id, amount);
        emit TransferSingle(msg.sender, from, to, id, amount);
    }

    /// @notice ERC-1155 transfer of several name tokens in one call: one TransferBatch event.
    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata amounts,
        bytes calldata
    ) external {
        require(ids.length == amounts.length, 'ids and amounts length mismatch');
        for (uint256 i = 0; i < ids.length; i++) _transfer(from, to, ids[i], amounts[i]);
        emit TransferBatch(msg.sender, from, to, ids, amounts);
    }

    function _transfer(address from, address to, uint256 id, uint256 amount) internal {
        require(to != address(0), 'transfer to the zero address');
        require(from == msg.sender || isApprovedForAll(from, msg.sender), 'caller is not owner nor approved');
        require(amount == 1 && _owners[id] == from, 'insufficient balance');
        _owners[id] = to;
    }

    function canModifyName(bytes32 node, address addr) public view returns (bool) {
        address owner = _owners[uint256(node)];
        return owner != address(0) && (owner == addr || isApprovedForAll(owner, addr));
    }

    bytes32 internal constant ETH_NODE = 0x93cdeb708b7545dc668eb9280176169d1c33cfd8ed6f04690a0bcc88a93fc4ae;
    uint32 internal constant PARENT_CANNOT_CONTROL = 1 << 16;
    uint32 internal constant IS_DOT_ETH = 1 << 17;
    uint64 internal constant GRACE_PERIOD = 90 days;

    /// @notice Wraps the .eth 2LD `label` as the real NameWrapper does: takes the registrar's ERC-721 token (the
    ///         caller owns it, or the owner approved the caller there, and the owner approved this contract there),
    ///         becomes the registry owner, sets `resolver`, and mints the token to `wrappedOwner` with
    ///         PARENT_CANNOT_CONTROL | IS_DOT_ETH and the registration's expiry plus the 90-day grace period. The
    ///         registrar is the registry owner of `eth`.
    function wrapETH2LD(
        string calldata label,
        address wrappedOwner,
        uint16 ownerControlledFuses,
        address resolver
    ) external returns (uint64 expiry) {
        IBaseRegistrarForWrapper registrar = IBaseRegistrarForWrapper(ens.owner(ETH_NODE));
        uint256 tokenId = uint256(keccak256(bytes(label)));
        address registrant = registrar.ownerOf(tokenId);
        bytes32 node = keccak256(abi.encodePacked(ETH_NODE, bytes32(tokenId)));
        if (registrant != msg.sender && !registrar.isApprovedForAll(registrant, msg.sender)) {
            revert Unauthorised(node, msg.sender);
        }
        if (wrappedOwner == address(0) || wrappedOwner == address(this)) revert IncorrectTargetOwner(wrappedOwner);
        registrar.transferFrom(registrant, address(this), tokenId);
        registrar.reclaim(tokenId, address(this));
        if (resolver != address(0)) ens.setResolver(node, resolver);
        expiry = uint64(registrar.nameExpires(tokenId)) + GRACE_PERIOD;
        names[node] = abi.encodePacked(uint8(bytes(label).length), bytes(label), uint8(3), 'eth', uint8(0));
        _mint(node, wrappedOwner, uint32(ownerControlledFuses) | PARENT_CANNOT_CONTROL | IS_DOT_ETH, expiry);
    }

    /// @notice Wraps `name`, owned in the registry by the caller (or an operator the owner approved there).
    ///         The registry owner must have approved this contract in the registry (setApprovalForAll).
    function wrap(bytes calldata name, address wrappedOwner, address resolver) external returns (bytes32 node) {
        node = _namehash(name, 0);
        address registryOwner = ens.owner(node);
        if (registryOwner != msg.sender && !ens.isApprovedForAll(registryOwner, msg.sender)) {
            revert Unauthorised(node, msg.sender);
        }
        if (wrappedOwner == address(0) || wrappedOwner == address(this)) revert IncorrectTargetOwner(wrappedOwner);
        ens.setOwner(node, address(this));
        if (resolver != address(0)) ens.setResolver(node, resolver);
        names[node] = name;
        _mint(node, wrappedOwner, 0, type(uint64).max);
    }

    function setResolver(bytes32 node, address resolver) external {
        if (!canModifyName(node, msg.sender)) revert Unauthorised(node, msg.sender);
        ens.setResolver(node, resolver);
        _authorise(node, _owners[uint256(node)]);
    }

    function setSubnodeOwner(
        bytes32 parentNode,
        string calldata label,
        address owner,
        uint32 fuses,
        uint64 expiry
    ) external returns (bytes32 node) {
        if (!canModifyName(parentNode, msg.sender)) revert Unauthorised(parentNode, msg.sender);
        bytes32 labelhash = keccak256(bytes(label));
        node = ens.setSubnodeOwner(parentNode, labelhash, address(this));
        _storeName(node, parentNode, label);
        _mint(node, owner, fuses, expiry);
    }

    function setSubnodeRecord(
        bytes32 parentNode,
        string calldata label,
        address owner,
        address resolver,
        uint64 ttl,
        uint32 fuses,
        uint64 expiry
    ) external returns (bytes32 node) {
        if (!canModifyName(parentNode, msg.sender)) revert Unauthorised(parentNode, msg.sender);
        bytes32 labelhash = keccak256(bytes(label));
        node = keccak256(abi.encodePacked(parentNode, labelhash));
        ens.setSubnodeRecord(parentNode, labelhash, address(this), resolver, ttl);
        _storeName(node, parentNode, label);
        _mint(node, owner, fuses, expiry);
    }

    function _storeName(bytes32 node, bytes32 parentNode, string calldata label) internal {
        bytes memory labelBytes = bytes(label);
        require(labelBytes.length > 0 && labelBytes.length < 256, 'label length');
        names[node] = abi.encodePacked(uint8(labelBytes.length), labelBytes, names[parentNode]);
    }

    function _mint(bytes32 node, address owner, uint32 fuses, uint64 expiry) internal {
        uint256 id = uint256(node);
        address previous = _owners[id];
        _owners[id] = owner;
        _fuses[id] = fuses;
        _expiries[id] = expiry;
        if (previous != address(0)) emit TransferSingle(msg.sender, previous, address(0), id, 1);
        emit NameWrapped(node, names[node], owner, fuses, expiry);
        emit TransferSingle(msg.sender, address(0), owner, id, 1);
        _authorise(node, owner);
    }

    /// Lets the token owner edit records on the (pre-NameWrapper) PublicResolver, which authorises the
    /// registry owner (this contract) and whoever that owner authorised.
    function _authorise(bytes32 node, address owner) internal {
        address resolver = ens.resolver(node);
        if (resolver == address(0) || owner == address(0)) return;
        uint256 gasBefore = gasleft();
        (bool ok, ) = resolver.call(abi.encodeCall(IAuthorisingResolver.setAuthorisation, (node, owner, true)));
        // A resolver without setAuthorisation is fine; running out of gas is not (keeps gas estimation honest).
        if (!ok && gasleft() <= gasBefore / 63) revert('NameWrapperTestDouble: out of gas');
    }

    function _namehash(bytes calldata name, uint256 offset) internal pure returns (bytes32) {
        uint256 len = uint8(name[offset]);
        if (len == 0) return bytes32(0);
        bytes32 labelhash = keccak256(name[offset + 1:offset + 1 + len]);
        return keccak256(abi.encodePacked(_namehash(name, offset + 1 + len), labelhash));
    }
}
