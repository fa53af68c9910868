// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AggregateVerifierTestDouble, IGameRegistry} from './AggregateVerifierTestDouble.sol';
import {FaultDisputeGameTestDouble} from './FaultDisputeGameTestDouble.sol';

interface IRespectedGameType {
    function respectedGameType() external view returns (uint32);
}

/// @title DisputeGameFactoryTestDouble
/// @notice An OP-stack DisputeGameFactory as the Unruggable Gateways OPFaultGameFinder reads it, written from the OP
///         specification's IDisputeGameFactory: `create(gameType, rootClaim, extraData)` (a FaultDisputeGameTestDouble,
///         extraData the ABI-encoded L2 block number; for game type 621 an AggregateVerifierTestDouble, extraData as
///         Base's AggregateVerifier reads it; Base creates those with `createWithInitData`), `gameCount`, `gameAtIndex(index)` → (gameType, timestamp, proxy) and
///         `games(gameType, rootClaim, extraData)` → (proxy, timestamp), one game per UUID. Created by its
///         AnchorStateRegistryTestDouble, whose respected game type a new game records as the real one does.
contract DisputeGameFactoryTestDouble {
    struct GameId {
        uint32 gameType;
        uint64 timestamp;
        address proxy;
    }

    event DisputeGameCreated(address indexed disputeProxy, uint32 indexed gameType, bytes32 indexed rootClaim);

    error GameAlreadyExists(bytes32 uuid);

    uint32 internal constant AGGREGATE_VERIFIER_GAME_TYPE = 621;

    IRespectedGameType public immutable anchorStateRegistry;
    GameId[] private _gameList;
    mapping(bytes32 uuid => GameId) private _games;

    constructor() {
        anchorStateRegistry = IRespectedGameType(msg.sender);
    }

    function create(uint32 gameType, bytes32 rootClaim, bytes calldata extraData) external returns (address proxy) {
        bytes32 uuid = keccak256(abi.encode(gameType, rootClaim, extraData));
        if (_games[uuid].proxy != address(0)) revert GameAlreadyExists(uuid);
        bool respected = anchorStateRegistry.respectedGameType() == gameType;
        proxy = gameType == AGGREGATE_VERIFIER_GAME_TYPE
            ? address(
                new AggregateVerifierTestDouble(
                    rootClaim,
                    extraData,
                    msg.sender,
                    respected,
                    IGameRegistry(address(anchorStateRegistry))
                )
            )
            : address(
                new FaultDisputeGameTestDouble(
                    gameType,
                    rootClaim,
                    abi.decode(extraData, (uint256)),
                    msg.sender,
                    respected
                )
            );
        GameId memory id = GameId(gameType, uint64(block.timestamp), proxy);
        _games[uuid] = id;
        _gameList.push(id);
        emit DisputeGameCreated(proxy, gameType, rootClaim);
    }

    function gameCount() external view returns (uint256) {
        return _gameList.length;
    }

    function gameAtIndex(uint256 index) external view returns (uint32 gameType, uint64 timestamp, address proxy) {
        GameId memory id = _gameList[index];
        return (id.gameType, id.timestamp, id.proxy);
    }

    function games(
        uint32 gameType,
        bytes32 rootClaim,
        bytes calldata extraData
    ) external view returns (address proxy, uint64 timestamp) {
        GameId memory id = _games[keccak256(abi.encode(gameType, rootClaim, extraData))];
        return (id.proxy, id.timestamp);
    }
}
