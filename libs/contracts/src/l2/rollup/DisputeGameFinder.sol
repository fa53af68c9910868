// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {
    IAnchorStateRegistry,
    IDisputeGame,
    IDisputeGameFactory,
    IOPFaultGameFinder,
    OPFaultParams
} from "@unruggable/gateways/contracts/op/OPInterfaces.sol";

/// The two ways a game says which L2 block its root is for: `l2SequenceNumber` (OP's current IDisputeGame, Base's
/// AggregateVerifier) and `l2BlockNumber` (older FaultDisputeGames).
interface IL2SequenceNumber {
    function l2SequenceNumber() external view returns (uint256);
}

/// What an OP FaultDisputeGame (game types 0 and 1) exposes of its disputes.
interface IFaultGameDisputes {
    function l2BlockNumberChallenged() external view returns (bool);
    function claimDataLen() external view returns (uint256);
}

/// What Base's AggregateVerifier (game type 621, Azul) exposes of its proofs, disputes and parent.
interface IAggregateVerifierGame {
    function parentAddress() external view returns (address);
    function proofCount() external view returns (uint8);
    function counteredByIntermediateRootIndexPlusOne() external view returns (uint256);
}

/// @title DisputeGameFinder
/// @notice The dispute game an Unruggable Gateways OPFaultVerifier (and the prover's OPFaultRollup) proves against,
///         with the ABI of the package's OPFaultGameFinder (`findGameIndex`, `gameAtIndex`) so both use it by
///         address. Written from the OP fault-proof specification and Base's Azul proof-contract specification
///         (docs.base.org, base-chain/specs/protocol/proofs/contracts); it reads both the OP FaultDisputeGames
///         (types 0 and 1) and Base's AggregateVerifier games (type 621).
///         A game is usable when: its type is allowed (none given: the registry's respected type, or the game's type
///         was respected when it was created), its creator is allowed (none given: anyone), the registry calls it
///         proper (registered, not blacklisted, not retired, not paused), it is at least `minAgeSec` old, and either
///         it resolved DEFENDER_WINS or (`minAgeSec` > 0) it is in progress and unchallenged by its type's rules:
///         - a fault-dispute game: its L2 block number not challenged and no counter-claim to its root;
///         - an AggregateVerifier game: not challenged (no countered intermediate root), at least one accepted proof
///           (none left: its proofs were nullified), and a sound parent chain: walking `parentAddress()`, each
///           ancestor proper and either the registry (the anchor state), resolved DEFENDER_WINS, or in progress and
///           itself unchallenged. A game resolves CHALLENGER_WINS when its parent did, or when its parent became
///           blacklisted or retired, so any of these would make it lose.
///         Game types this contract does not know are accepted only resolved DEFENDER_WINS.
contract DisputeGameFinder is IOPFaultGameFinder {
    uint8 internal constant IN_PROGRESS = 0;
    uint8 internal constant CHALLENGER_WINS = 1;
    uint8 internal constant DEFENDER_WINS = 2;
    uint256 internal constant AGGREGATE_VERIFIER_GAME_TYPE = 621;

    /// @notice Most in-progress ancestors one call walks, shared by every game it judges; past it, an in-progress
    ///         AggregateVerifier game is judged unsound. Unbounded, one `findGameIndex` could walk the same long chain
    ///         once per candidate game (quadratic) and an `eth_call` of the verifier would run out of an RPC's gas
    ///         cap; each step costs a few external calls (the registry's `isGameProper` the most, some 30-40k gas).
    ///         Base creates a game about every 20 minutes and one with a single proof resolves 7 days after
    ///         creation, so up to ~504 unresolved ancestors can lie between the newest game and a resolved one: 600
    ///         covers one such walk. Failing closed only falls back to older or resolved games.
    uint256 public constant MAX_PARENT_STEPS = 600;

    error GameNotFound();

    struct Search {
        uint256 respectedGameType;
        uint256 stepsLeft;
    }

    /// @notice The index of the newest usable game below `gameBound` (0: the factory's game count).
    function findGameIndex(OPFaultParams memory params, uint256 gameBound) external view returns (uint256) {
        IDisputeGameFactory factory = params.asr.disputeGameFactory();
        if (gameBound == 0) gameBound = factory.gameCount();
        Search memory search = _search(params);
        while (gameBound > 0) {
            (uint256 gameType, uint256 created, IDisputeGame game) = factory.gameAtIndex(--gameBound);
            if (_isUsable(params, search, game, gameType, created)) return gameBound;
        }
        revert GameNotFound();
    }

    /// @notice The game at `gameIndex`; `l2BlockNumber` and `rootClaim` are 0 unless it is usable.
    function gameAtIndex(
        OPFaultParams memory params,
        uint256 gameIndex
    )
        external
        view
        returns (uint256 gameType, uint256 created, IDisputeGame gameProxy, uint256 l2BlockNumber, bytes32 rootClaim)
    {
        (gameType, created, gameProxy) = params.asr.disputeGameFactory().gameAtIndex(gameIndex);
        if (_isUsable(params, _search(params), gameProxy, gameType, created)) {
            l2BlockNumber = _l2BlockNumber(gameProxy);
            rootClaim = gameProxy.rootClaim();
        }
    }

    function _search(OPFaultParams memory params) internal view returns (Search memory) {
        return Search({respectedGameType: params.asr.respectedGameType(), stepsLeft: MAX_PARENT_STEPS});
    }

    function _isUsable(
        OPFaultParams memory params,
        Search memory search,
        IDisputeGame game,
        uint256 gameType,
        uint256 created
    ) internal view returns (bool) {
        if (params.allowedGameTypes.length == 0) {
            if (gameType != search.respectedGameType && !game.wasRespectedGameTypeWhenCreated()) return false;
        } else if (!_contains(params.allowedGameTypes, gameType)) {
            return false;
        }
        if (params.allowedProposers.length > 0 && !_containsAddress(params.allowedProposers, game.gameCreator()))
            return false;
        if (!params.asr.isGameProper(game)) return false;
        if (created + params.minAgeSec > block.timestamp) return false;
        uint256 status = game.status();
        if (status == DEFENDER_WINS) return true;
        if (params.minAgeSec == 0 || status != IN_PROGRESS) return false;
        if (gameType == AGGREGATE_VERIFIER_GAME_TYPE) return _isSoundAggregate(params.asr, search, address(game));
        return _isUndisputedFaultGame(address(game));
    }

    /// A FaultDisputeGame nobody disputed: one claim (the root) and its block number unchallenged. A game without
    /// these (another type) counts as disputed.
    function _isUndisputedFaultGame(address game) internal view returns (bool) {
        try IFaultGameDisputes(game).l2BlockNumberChallenged() returns (bool challenged) {
            if (challenged) return false;
        } catch {}
        try IFaultGameDisputes(game).claimDataLen() returns (uint256 claims) {
            return claims == 1;
        } catch {
            return false;
        }
    }

    /// An in-progress AggregateVerifier game that is unchallenged, still proven, and whose ancestors cannot make it
    /// lose (see the contract's notice). Walks at most `search.stepsLeft` in-progress games.
    function _isSoundAggregate(
        IAnchorStateRegistry asr,
        Search memory search,
        address game
    ) internal view returns (bool) {
        while (true) {
            if (!_isUnchallengedAggregate(game)) return false;
            address parent;
            try IAggregateVerifierGame(game).parentAddress() returns (address p) {
                parent = p;
            } catch {
                return false;
            }
            if (parent == address(asr)) return true;
            if (parent == address(0) || !asr.isGameProper(IDisputeGame(parent))) return false;
            uint256 status = IDisputeGame(parent).status();
            if (status == DEFENDER_WINS) return true;
            if (status != IN_PROGRESS) return false;
            if (search.stepsLeft == 0) return false;
            search.stepsLeft--;
            game = parent;
        }
    }

    function _isUnchallengedAggregate(address game) internal view returns (bool) {
        try IAggregateVerifierGame(game).counteredByIntermediateRootIndexPlusOne() returns (uint256 countered) {
            if (countered != 0) return false;
        } catch {
            return false;
        }
        try IAggregateVerifierGame(game).proofCount() returns (uint8 proofs) {
            return proofs > 0;
        } catch {
            return false;
        }
    }

    function _l2BlockNumber(IDisputeGame game) internal view returns (uint256) {
        try IL2SequenceNumber(address(game)).l2SequenceNumber() returns (uint256 number) {
            return number;
        } catch {
            return game.l2BlockNumber();
        }
    }

    function _contains(uint256[] memory list, uint256 value) internal pure returns (bool) {
        for (uint256 i; i < list.length; ++i) if (list[i] == value) return true;
        return false;
    }

    function _containsAddress(address[] memory list, address value) internal pure returns (bool) {
        for (uint256 i; i < list.length; ++i) if (list[i] == value) return true;
        return false;
    }
}
