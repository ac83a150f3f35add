import Kafka
import Runtime

/// The messages of `push.jobs` this process is working on now, by partition and offset.
///
/// An eager rebalance takes every partition away from every member and gives most of them back a moment later; a job
/// still sending is not cancelled by the revocation, and its message is read again from the last commit. Without this,
/// the member would start a second copy of its own running job and send its unanswered targets twice (progress marks
/// only cover the answers already marked). With it, the re-read message is not started: the copy still running ends it,
/// and its `CommitTracker.finish` (after `end`) finishes the re-read offset too, so the commit waits for it. If the
/// running copy is abandoned (shutdown, results not produced), the offset stays pending until the next assignment, as
/// any abandoned job's does.
final class RunningJobs: Sendable {
    private struct ID: Hashable {
        var topic: String
        var partition: Int32
        var offset: Int64

        init(_ message: KafkaMessage) {
            topic = message.topic
            partition = message.partition
            offset = message.offset
        }
    }

    private let running = LockedValue(Set<ID>())

    /// `message`'s work begins here.
    func begin(_ message: KafkaMessage) {
        _ = running.withLock { $0.insert(ID(message)) }
    }

    /// `message`'s work ended (call before finishing its offset in the tracker).
    func end(_ message: KafkaMessage) {
        _ = running.withLock { $0.remove(ID(message)) }
    }

    /// Whether this process is still working on `message` (read again after its partition came back).
    func contains(_ message: KafkaMessage) -> Bool {
        running.withLock { $0.contains(ID(message)) }
    }

    /// Messages being worked on.
    var count: Int { running.withLock { $0.count } }
}
