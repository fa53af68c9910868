// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title L2OutputOracle
/// @notice The OP-stack L2OutputOracle as its specification describes it (L2 output roots proposed on L1, read by
///         index), for the dev stack's two anvils, where a local proposer plays the rollup's op-proposer. Written from
///         the OP specification (no OP code copied), with the same function names, types and events, so the
///         Unruggable Gateways OP verifier and output finder read it as they read a real oracle. One deviation:
///         an anvil L2 mines a block per transaction, not one every `l2BlockTime` seconds, so a proposal may name any
///         L2 block after the latest proposed one (not exactly `submissionInterval` blocks later) and its L2 timestamp
///         is not checked against the L1 clock.
///         An output root is `keccak256(abi.encode(version 0, stateRoot, messagePasserStorageRoot, blockHash))` of
///         the L2 block `l2BlockNumber`.
contract L2OutputOracle {
    struct OutputProposal {
        bytes32 outputRoot;
        uint128 timestamp;
        uint128 l2BlockNumber;
    }

    address public immutable proposer;
    address public immutable challenger;
    uint256 public immutable finalizationPeriodSeconds;
    uint256 public immutable startingBlockNumber;

    OutputProposal[] internal _outputs;

    event OutputProposed(
        bytes32 indexed outputRoot,
        uint256 indexed l2OutputIndex,
        uint256 indexed l2BlockNumber,
        uint256 l1Timestamp
    );
    event OutputsDeleted(uint256 indexed prevNextOutputIndex, uint256 indexed newNextOutputIndex);

    error NotProposer(address caller);
    error NotChallenger(address caller);
    error EmptyOutputRoot();
    error BlockNumberNotAfterLatest(uint256 l2BlockNumber, uint256 latestBlockNumber);
    error L1BlockHashMismatch(uint256 l1BlockNumber, bytes32 l1BlockHash);
    error OutputIndexOutOfRange(uint256 index);
    error FinalizedOutput(uint256 index);

    constructor(
        address proposer_,
        address challenger_,
        uint256 finalizationPeriodSeconds_,
        uint256 startingBlockNumber_
    ) {
        proposer = proposer_;
        challenger = challenger_;
        finalizationPeriodSeconds = finalizationPeriodSeconds_;
        startingBlockNumber = startingBlockNumber_;
    }

    /// @notice Proposes the output root of L2 block `l2BlockNumber`. `l1BlockHash`, when not zero, must be the hash of
    ///         L1 block `l1BlockNumber` (a proposal made for one L1 fork is void on another).
    function proposeL2Output(
        bytes32 outputRoot,
        uint256 l2BlockNumber,
        bytes32 l1BlockHash,
        uint256 l1BlockNumber
    ) external payable {
        if (msg.sender != proposer) revert NotProposer(msg.sender);
        if (outputRoot == bytes32(0)) revert EmptyOutputRoot();
        uint256 latest = latestBlockNumber();
        if (_outputs.length == 0 ? l2BlockNumber < latest : l2BlockNumber <= latest)
            revert BlockNumberNotAfterLatest(l2BlockNumber, latest);
        if (l1BlockHash != bytes32(0) && blockhash(l1BlockNumber) != l1BlockHash)
            revert L1BlockHashMismatch(l1BlockNumber, l1BlockHash);
        emit OutputProposed(outputRoot, _outputs.length, l2BlockNumber, block.timestamp);
        _outputs.push(OutputProposal(outputRoot, uint128(block.timestamp), uint128(l2BlockNumber)));
    }

    /// @notice The challenger deletes every output from `l2OutputIndex` on, unless it is finalized.
    function deleteL2Outputs(uint256 l2OutputIndex) external {
        if (msg.sender != challenger) revert NotChallenger(msg.sender);
        if (l2OutputIndex >= _outputs.length) revert OutputIndexOutOfRange(l2OutputIndex);
        if (block.timestamp - _outputs[l2OutputIndex].timestamp >= finalizationPeriodSeconds)
            revert FinalizedOutput(l2OutputIndex);
        uint256 prevNextOutputIndex = _outputs.length;
        while (_outputs.length > l2OutputIndex) _outputs.pop();
        emit OutputsDeleted(prevNextOutputIndex, l2OutputIndex);
    }

    function getL2Output(uint256 l2OutputIndex) external view returns (OutputProposal memory) {
        if (l2OutputIndex >= _outputs.length) revert OutputIndexOutOfRange(l2OutputIndex);
        return _outputs[l2OutputIndex];
    }

    /// @notice The index of the first output at or after L2 block `l2BlockNumber`.
    function getL2OutputIndexAfter(uint256 l2BlockNumber) public view returns (uint256) {
        uint256 length = _outputs.length;
        if (length == 0 || _outputs[length - 1].l2BlockNumber < l2BlockNumber)
            revert OutputIndexOutOfRange(length);
        uint256 lo = 0;
        uint256 hi = length - 1;
        while (lo < hi) {
            uint256 mid = (lo + hi) / 2;
            if (_outputs[mid].l2BlockNumber < l2BlockNumber) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    function getL2OutputAfter(uint256 l2BlockNumber) external view returns (OutputProposal memory) {
        return _outputs[getL2OutputIndexAfter(l2BlockNumber)];
    }

    /// @notice The index of the latest output; reverts when none was proposed.
    function latestOutputIndex() external view returns (uint256) {
        if (_outputs.length == 0) revert OutputIndexOutOfRange(0);
        return _outputs.length - 1;
    }

    function nextOutputIndex() external view returns (uint256) {
        return _outputs.length;
    }

    /// @notice The L2 block of the latest output, or `startingBlockNumber` when none was proposed.
    function latestBlockNumber() public view returns (uint256) {
        return _outputs.length == 0 ? startingBlockNumber : _outputs[_outputs.length - 1].l2BlockNumber;
    }
}
