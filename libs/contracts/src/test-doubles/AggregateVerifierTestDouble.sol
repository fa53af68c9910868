// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IGameRegistry {
    function isGameProper(address game) external view returns (bool);
}

interface IParentGame {
    function status() external view returns (uint8);
    function l2SequenceNumber() external view returns (uint256);
    function wasRespectedGameTypeWhenCreated() external view returns (bool);
}

/// @title AggregateVerifierTestDouble
/// @notice Base's AggregateVerifier dispute game (game type 621, the Azul proof system) as a game finder reads it,
///         written from Base's proof-contract specification (docs.base.org, base-chain/specs/protocol/proofs/
///         contracts): `gameType`, `rootClaim` (an L2 output root), `extraData` (the proposed L2 block number, the
///         parent's address, the intermediate output roots: here one, which must be the root claim),
///         `l2SequenceNumber`, `parentAddress`, `gameCreator`, `createdAt`, `resolvedAt`, `status`,
///         `wasRespectedGameTypeWhenCreated`, `teeProver`, `zkProver`, `proofCount`,
///         `counteredByIntermediateRootIndexPlusOne`; no `l2BlockNumber`. Created by DisputeGameFactoryTestDouble
///         with its creator's TEE proof taken as verified, from a parent that is the AnchorStateRegistry or a proper,
///         respected game that has not lost. No verifiers, bonds, clocks or block-interval arithmetic: a test moves
///         it with `verifyProposalProof` (a second, ZK proof), `challenge` (a ZK proof of another intermediate root),
///         `nullify` (removes the challenge, or else the TEE proof) and `resolve` (as the spec's: the parent's loss,
///         blacklisting or retirement makes it lose; otherwise a challenge wins, or it needs a proof to be won).
contract AggregateVerifierTestDouble {
    enum GameStatus {
        IN_PROGRESS,
        CHALLENGER_WINS,
        DEFENDER_WINS
    }

    uint32 public constant gameType = 621;
    IGameRegistry public immutable anchorStateRegistry;
    bytes32 public immutable rootClaim;
    uint256 public immutable l2SequenceNumber;
    address public immutable parentAddress;
    address public immutable gameCreator;
    bool public immutable wasRespectedGameTypeWhenCreated;
    uint64 public immutable createdAt;
    bytes private _extraData;
    uint64 public resolvedAt;
    GameStatus public status;
    address public teeProver;
    address public zkProver;
    uint8 public proofCount;
    uint256 public counteredByIntermediateRootIndexPlusOne;

    constructor(
        bytes32 rootClaim_,
        bytes memory extraData_,
        address gameCreator_,
        bool wasRespectedGameTypeWhenCreated_,
        IGameRegistry anchorStateRegistry_
    ) {
        require(extraData_.length == 84, 'extraData: block number, parent, one intermediate root');
        uint256 sequenceNumber;
        address parent;
        bytes32 finalIntermediateRoot;
        assembly {
            sequenceNumber := mload(add(extraData_, 32))
            parent := shr(96, mload(add(extraData_, 64)))
            finalIntermediateRoot := mload(add(extraData_, 84))
        }
        require(finalIntermediateRoot == rootClaim_, 'the final intermediate root is not the root claim');
        if (parent != address(anchorStateRegistry_)) {
            IParentGame p = IParentGame(parent);
            require(
                anchorStateRegistry_.isGameProper(parent) &&
                    p.wasRespectedGameTypeWhenCreated() &&
                    p.status() != uint8(GameStatus.CHALLENGER_WINS) &&
                    p.l2SequenceNumber() < sequenceNumber,
                'invalid parent game'
            );
        }
        anchorStateRegistry = anchorStateRegistry_;
        rootClaim = rootClaim_;
        l2SequenceNumber = sequenceNumber;
        parentAddress = parent;
        gameCreator = gameCreator_;
        wasRespectedGameTypeWhenCreated = wasRespectedGameTypeWhenCreated_;
        createdAt = uint64(block.timestamp);
        _extraData = extraData_;
        teeProver = gameCreator_;
        proofCount = 1;
    }

    function extraData() external view returns (bytes memory) {
        return _extraData;
    }

    function verifyProposalProof() external {
        require(status == GameStatus.IN_PROGRESS && zkProver == address(0), 'cannot add a ZK proof');
        zkProver = msg.sender;
        proofCount += 1;
    }

    function challenge(uint256 intermediateRootIndex) external {
        require(status == GameStatus.IN_PROGRESS, 'game resolved');
        require(_parentStatus() != GameStatus.CHALLENGER_WINS, 'parent lost');
        require(teeProver != address(0) && zkProver == address(0), 'only a TEE-proven game is challenged');
        require(intermediateRootIndex == 0, 'no such intermediate root');
        zkProver = msg.sender;
        proofCount += 1;
        counteredByIntermediateRootIndexPlusOne = intermediateRootIndex + 1;
    }

    function nullify() external {
        require(status == GameStatus.IN_PROGRESS, 'game resolved');
        if (counteredByIntermediateRootIndexPlusOne != 0) {
            counteredByIntermediateRootIndexPlusOne = 0;
            zkProver = address(0);
        } else {
            require(teeProver != address(0), 'no TEE proof');
            teeProver = address(0);
        }
        proofCount -= 1;
    }

    function resolve() external returns (GameStatus) {
        require(status == GameStatus.IN_PROGRESS, 'game resolved');
        GameStatus parent = _parentStatus();
        require(parent != GameStatus.IN_PROGRESS, 'parent not resolved');
        if (
            parent == GameStatus.CHALLENGER_WINS ||
            (parentAddress != address(anchorStateRegistry) && !anchorStateRegistry.isGameProper(parentAddress))
        ) {
            status = GameStatus.CHALLENGER_WINS;
        } else {
            require(proofCount > 0, 'no proof');
            status = counteredByIntermediateRootIndexPlusOne != 0 ? GameStatus.CHALLENGER_WINS : GameStatus.DEFENDER_WINS;
        }
        resolvedAt = uint64(block.timestamp);
        return status;
    }

    /// The registry (the anchor state) counts as a parent resolved for the proposer.
    function _parentStatus() internal view returns (GameStatus) {
        if (parentAddress == address(anchorStateRegistry)) return GameStatus.DEFENDER_WINS;
        return GameStatus(IParentGame(parentAddress).status());
    }
}
