// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DisputeGameFactoryTestDouble} from './DisputeGameFactoryTestDouble.sol';
import {FaultDisputeGameTestDouble} from './FaultDisputeGameTestDouble.sol';

/// @title AnchorStateRegistryTestDouble
/// @notice An OP-stack AnchorStateRegistry as the Unruggable Gateways OPFaultGameFinder and OPFaultRollup read it,
///         written from the OP specification (fault-proof/stage-one/anchor-state-registry): `disputeGameFactory`,
///         `respectedGameType`, `disputeGameBlacklist`, `isGameRegistered` and `isGameProper` (registered by the
///         factory and not blacklisted; no retirement or pause). Deploys its own DisputeGameFactoryTestDouble.
///         Anyone may `setRespectedGameType` and `blacklistDisputeGame` (the real ones: only the guardian).
contract AnchorStateRegistryTestDouble {
    DisputeGameFactoryTestDouble public immutable disputeGameFactory;
    uint32 public respectedGameType;
    mapping(address game => bool) public disputeGameBlacklist;

    constructor(uint32 respectedGameType_) {
        disputeGameFactory = new DisputeGameFactoryTestDouble();
        respectedGameType = respectedGameType_;
    }

    function setRespectedGameType(uint32 gameType) external {
        respectedGameType = gameType;
    }

    function blacklistDisputeGame(address game) external {
        disputeGameBlacklist[game] = true;
    }

    function isGameRegistered(address game) public view returns (bool) {
        FaultDisputeGameTestDouble g = FaultDisputeGameTestDouble(game);
        (address proxy, ) = disputeGameFactory.games(g.gameType(), g.rootClaim(), g.extraData());
        return proxy == game;
    }

    function isGameProper(address game) external view returns (bool) {
        return isGameRegistered(game) && !disputeGameBlacklist[game];
    }
}
