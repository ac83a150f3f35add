import Kafka
import Runtime
import ServiceKit

/// The jobs read but not started (`JobLookahead`), shared by the two halves of apns-sender: the jobs topic's consume
/// loop puts messages in (it is this loop's `KafkaIntakeHandler`), the `JobDispatcher` takes them out. Every change
/// (a message read, a job ended, a send round over, settling done) bumps `changes`, which either side awaits.
final class JobReadAhead: KafkaIntakeHandler {
    let lookahead: LockedValue<JobLookahead>
    /// Bumped on every change either side may be waiting for.
    let changes = AsyncCondition<UInt64>(0)
    let metrics: SenderMetrics
    /// Told of every message read (the first one of a partition after an assignment bounds what its marks need keep).
    let marks: ProgressMarks?

    init(capacity: Int, metrics: SenderMetrics, marks: ProgressMarks? = nil) {
        lookahead = LockedValue(JobLookahead(capacity: capacity))
        self.metrics = metrics
        self.marks = marks
    }

    /// Wakes whoever waits for a change.
    func bump() { changes.update { $0 &+= 1 } }

    /// Suspends until a change after `seen` (a value of `changes`), or `timeout`.
    func waitForChange(after seen: UInt64, timeout: Duration) async {
        _ = await changes.wait(until: { $0 != seen }, timeout: timeout)
    }

    var hasRoom: Bool { lookahead.withLock { $0.hasRoom } }

    func waitForRoom(timeout: Duration) async {
        let seen = changes.value
        guard !hasRoom else { return }
        await waitForChange(after: seen, timeout: timeout)
    }

    func accept(_ message: KafkaMessage) {
        marks?.noteRead(message)
        let entry = JobLookahead.Entry(message: message, incoming: JobIntake.classify(message), key: message.keyString ?? "")
        let counts = lookahead.withLock { lookahead -> [Int: Int] in
            lookahead.append(entry)
            return lookahead.countsByPriority
        }
        metrics.lookahead(counts)
        bump()
    }

    /// Everything fetched was read: a lookahead settling after an assignment may start now.
    func caughtUp() {
        let wasSettling = lookahead.withLock { lookahead in
            defer { lookahead.settled() }
            return lookahead.settlingUntil != nil
        }
        if wasSettling { bump() }
    }
}
