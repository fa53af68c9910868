// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title FaultDisputeGameTestDouble
/// @notice An OP-stack FaultDisputeGame as the Unruggable Gateways OPFaultGameFinder and OPFaultRollup read it,
///         written from the OP specification's IFaultDisputeGame (fault-proof/stage-one): `gameType`, `rootClaim`,
///         `l2BlockNumber`, `extraData`, `gameCreator`, `createdAt`, `resolvedAt`, `status`,
///         `wasRespectedGameTypeWhenCreated`, `claimDataLen`, `l2BlockNumberChallenged`. No bisection, clocks or
///         bonds: a test moves it with `move` (a counter-claim, as the real game's `attack`/`defend` add one),
///         `challengeL2BlockNumber` and `resolveAs` (the status the real game's `resolve` would reach).
contract FaultDisputeGameTestDouble {
    enum GameStatus {
        IN_PROGRESS,
        CHALLENGER_WINS,
        DEFENDER_WINS
    }

    uint32 public immutable gameType;
    bytes32 public immutable rootClaim;
    uint256 public immutable l2BlockNumber;
    address public immutable gameCreator;
    bool public immutable wasRespectedGameTypeWhenCreated;
    uint64 public immutable createdAt;
    uint64 public resolvedAt;
    GameStatus public status;
    /// @notice Claims in the game's DAG: 1 (the root claim) until someone disputes it.
    uint256 public claimDataLen = 1;
    bool public l2BlockNumberChallenged;

    constructor(
        uint32 gameType_,
        bytes32 rootClaim_,
        uint256 l2BlockNumber_,
        address gameCreator_,
        bool wasRespectedGameTypeWhenCreated_
    ) {
        gameType = gameType_;
        rootClaim = rootClaim_;
        l2BlockNumber = l2BlockNumber_;
        gameCreator = gameCreator_;
        wasRespectedGameTypeWhenCreated = wasRespectedGameTypeWhenCreated_;
        createdAt = uint64(block.timestamp);
    }

    /// @notice The factory's UUID input: the L2 block number the root claims, ABI-encoded.
    function extraData() external view returns (bytes memory) {
        return abi.encode(l2BlockNumber);
    }

    function move() external {
        require(status == GameStatus.IN_PROGRESS, 'game resolved');
        claimDataLen += 1;
    }

    function challengeL2BlockNumber() external {
        require(status == GameStatus.IN_PROGRESS, 'game resolved');
        l2BlockNumberChallenged = true;
    }

    function resolveAs(GameStatus outcome) external {
        require(status == GameStatus.IN_PROGRESS && outcome != GameStatus.IN_PROGRESS, 'bad resolution');
        status = outcome;
        resolvedAt = uint64(block.timestamp);
    }
}
