import Kafka
import Runtime

/// The messages of `push.jobs` this process is working on now, and those it finished a moment ago, by partition and
/// offset.
///
/// An eager rebalance takes every partition away from every member and gives most of them back a moment later; a job
/// still sending is not cancelled by the revocation, and its message is read again from the last commit. Without this,
/// the member would start a second copy of its own running job and send its unanswered targets twice (progress marks
/// only cover the answers already marked). With it, the re-read message is not started: the copy still running ends it,
/// and its `CommitTracker.finish` (after `end`) finishes the re-read offset too, so the commit waits for it. If the
/// running copy is abandoned (shutdown, results not produced), the offset stays pending until the next assignment, as
/// any abandoned job's does.
///
/// A message finished here within `finishedMemory` and read again (its offset was not committed yet: an older job of
/// its partition was still running) is final already — its results are on their topics — and is finished without a
/// push. The done mark says the same to any member, but only once the read after the assignment has seen it.
final class RunningJobs: Sendable {
    private struct State {
        /// Messages in work, with their Kafka timestamp (an offset of a topic deleted and made again is another message).
        var running: [JobMessageID: Int64] = [:]
        /// Messages finished lately: their timestamp and when they finished.
        var finished: [JobMessageID: (timestamp: Int64, at: ContinuousClock.Instant)] = [:]
        var lastPrune = ContinuousClock.now
    }

    /// What this process knows of a message read again.
    enum Known: Equatable {
        /// Not being worked on here, not finished here lately.
        case unknown
        /// Its first copy still runs here.
        case running
        /// Finished here within `finishedMemory`.
        case finished
    }

    private let state = LockedValue(State())
    private let finishedMemory: Duration

    init(finishedMemory: Duration = .seconds(300)) {
        self.finishedMemory = finishedMemory
    }

    /// `message`'s work begins.
    func begin(_ message: KafkaMessage) {
        state.withLock { $0.running[JobMessageID(message)] = message.timestampMilliseconds }
    }

    /// `message`'s work ended, final (`finished`: its results are on their topics) or not (call before finishing its
    /// offset in the tracker).
    func end(_ message: KafkaMessage, finished: Bool) {
        state.withLock { state in
            let id = JobMessageID(message)
            guard let timestamp = state.running.removeValue(forKey: id) else { return }
            let now = ContinuousClock.now
            if finished { state.finished[id] = (timestamp, now) }
            if now - state.lastPrune > .seconds(10) {
                state.lastPrune = now
                state.finished = state.finished.filter { now - $0.value.at < finishedMemory }
            }
        }
    }

    /// Whether this process is working on `message` now, or finished it lately.
    func known(_ message: KafkaMessage) -> Known {
        state.withLock { state in
            let id = JobMessageID(message)
            if state.running[id] == message.timestampMilliseconds { return .running }
            if let finished = state.finished[id], finished.timestamp == message.timestampMilliseconds,
               ContinuousClock.now - finished.at < finishedMemory {
                return .finished
            }
            return .unknown
        }
    }
}
