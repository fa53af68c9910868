// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from '@openzeppelin/contracts/utils/cryptography/ECDSA.sol';

/// @title ERC6492SignatureValidator
/// @notice The universal signature check of ERC-6492, run as a deployless `eth_call`: the call's data is this
///         contract's creation code followed by `abi.encode(signer, hash, signature)`, and the creation returns one
///         byte, 0x01 when `signature` is valid for `signer` over `hash`, 0x00 when it is not. Nothing it does
///         persists (an `eth_call`), so a counterfactual account is deployed by its factory call here and checked.
/// @dev    Order of the checks, as ERC-6492 sets it: a signature ending in the 32 magic bytes is
///         `abi.encode(factory, factoryCalldata, innerSignature)` followed by them: when `signer` has no code the
///         factory is called with `factoryCalldata` (a failed call is an invalid signature), then `innerSignature`
///         is checked with ERC-1271; when `signer` already has code and refuses it, the factory call is made as a
///         preparation and ERC-1271 is asked once more. Any other signature is checked with ERC-1271 when `signer`
///         has code, else by ecrecover.
contract ERC6492SignatureValidator {
    bytes32 internal constant ERC6492_MAGIC = 0x6492649264926492649264926492649264926492649264926492649264926492;
    bytes4 internal constant ERC1271_MAGIC = 0x1626ba7e;

    constructor(address signer, bytes32 hash, bytes memory signature) {
        bool valid = isValid(signer, hash, signature);
        assembly {
            mstore(0, valid)
            return(31, 1)
        }
    }

    function isValid(address signer, bytes32 hash, bytes memory signature) internal returns (bool) {
        if (!endsWithMagic(signature)) {
            if (signer.code.length > 0) return erc1271Valid(signer, hash, signature);
            (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
            return err == ECDSA.RecoverError.NoError && recovered == signer;
        }
        (address factory, bytes memory factoryCalldata, bytes memory inner) = abi.decode(
            withoutMagic(signature),
            (address, bytes, bytes)
        );
        if (signer.code.length == 0) {
            (bool deployed, ) = factory.call(factoryCalldata);
            if (!deployed || signer.code.length == 0) return false;
            return erc1271Valid(signer, hash, inner);
        }
        if (erc1271Valid(signer, hash, inner)) return true;
        (bool prepared, ) = factory.call(factoryCalldata);
        return prepared && erc1271Valid(signer, hash, inner);
    }

    function erc1271Valid(address signer, bytes32 hash, bytes memory signature) internal view returns (bool) {
        (bool ok, bytes memory answer) = signer.staticcall(
            abi.encodeWithSelector(ERC1271_MAGIC, hash, signature)
        );
        return ok && answer.length >= 32 && bytes4(bytes32(answer)) == ERC1271_MAGIC;
    }

    function endsWithMagic(bytes memory signature) internal pure returns (bool suffixed) {
        if (signature.length < 32) return false;
        assembly {
            suffixed := eq(mload(add(signature, mload(signature))), ERC6492_MAGIC)
        }
    }

    /// @dev `signature` without its last 32 bytes (a copy).
    function withoutMagic(bytes memory signature) internal pure returns (bytes memory wrapped) {
        wrapped = new bytes(signature.length - 32);
        for (uint256 i = 0; i < wrapped.length; i++) wrapped[i] = signature[i];
    }
}
