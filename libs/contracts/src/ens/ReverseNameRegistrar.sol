// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ReverseNameRegistrar
/// @notice Our ENSIP-19 reverse registrar and resolver for one coin type, for a local chain: accounts set their
///         primary name with `setName`, and as the ENSIP-10 extended resolver of `<coinTypeHex>.reverse` (or
///         `default.reverse`) it answers `name(node)` for `<hex address>.<namespace>.reverse`.
///         Deployed once for the default EVM coin type (0x80000000, `default.reverse`) and once per chain coin
///         type (`0x80000000 | chainId`, e.g. Base `80002105.reverse`), the chain one falling back to the default
///         registrar when the account set no name for that chain, as ENSIP-19 specifies. On mainnet the chain
///         names live on the L2 and are read through CCIP-Read; here both live on the local chain.
contract ReverseNameRegistrar {
    error UnsupportedResolverProfile(bytes4 selector);

    event NameForAddrChanged(address indexed addr, string name);

    bytes4 internal constant ERC165_ID = 0x01ffc9a7;
    bytes4 internal constant EXTENDED_RESOLVER_ID = 0x9061b923;
    bytes4 internal constant NAME = 0x691f3431; // name(bytes32)

    uint256 public immutable coinType;
    ReverseNameRegistrar public immutable fallbackRegistrar;
    mapping(address => string) internal _names;

    constructor(uint256 coinType_, ReverseNameRegistrar fallbackRegistrar_) {
        coinType = coinType_;
        fallbackRegistrar = fallbackRegistrar_;
    }

    /// @notice Sets the caller's primary name for this coin type ("" clears it).
    function setName(string calldata name) external {
        _names[msg.sender] = name;
        emit NameForAddrChanged(msg.sender, name);
    }

    /// @notice The primary name of `addr` for this coin type, else the fallback registrar's, else "".
    function nameForAddr(address addr) public view returns (string memory name) {
        name = _names[addr];
        if (bytes(name).length == 0 && address(fallbackRegistrar) != address(0)) name = fallbackRegistrar.nameForAddr(addr);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == ERC165_ID || interfaceId == EXTENDED_RESOLVER_ID;
    }

    /// @notice ENSIP-10: `name(node)` of `<hex address>.<namespace>.reverse`; any other record is unsupported.
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory) {
        if (data.length < 4 || bytes4(data) != NAME) revert UnsupportedResolverProfile(bytes4(data));
        (bool valid, address addr) = _addressLabel(name);
        return abi.encode(valid ? nameForAddr(addr) : '');
    }

    /// @dev The first label of a DNS-encoded name as a 40-digit hex address.
    function _addressLabel(bytes calldata name) internal pure returns (bool, address) {
        if (name.length < 41 || uint8(name[0]) != 40) return (false, address(0));
        uint160 value = 0;
        for (uint256 i = 1; i <= 40; i++) {
            uint8 c = uint8(name[i]);
            uint8 digit;
            if (c >= 0x30 && c <= 0x39) digit = c - 0x30;
            else if (c >= 0x61 && c <= 0x66) digit = c - 0x57;
            else if (c >= 0x41 && c <= 0x46) digit = c - 0x37;
            else return (false, address(0));
            value = (value << 4) | digit;
        }
        return (true, address(value));
    }
}
