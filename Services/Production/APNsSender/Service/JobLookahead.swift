import Contracts
import Kafka
import Runtime

/// Jobs taken off the topic but not started yet, at most `capacity`: the window in which apns-sender reorders.
///
/// The next job to start is the oldest priority-10 job that may start (`SendOrder.mayStart`), else the oldest
/// job of any priority that may: a key event or an end is never queued behind plain updates apns-sender has
/// already read, and a plain update it overtook is then superseded at its start (`SendOrder.beginRound`).
/// A plain update (priority below 10) is also superseded when a newer state of its key is already in the lookahead (read, not started):
/// it is taken out flagged, to be finished without a push. Messages that are not sendable jobs (invalid, poison) go
/// in order like plain updates.
///
/// After an assignment the lookahead *settles* (`settle(until:)`): nothing starts until the intake has read what
/// was fetched (a poll came back empty), the lookahead is full, or the deadline passed — so a member that takes over
/// partitions sees a key's newer state before it starts the older one it re-read from the committed offset.
struct JobLookahead: Sendable {
    /// One message taken off the topic.
    struct Entry: Sendable {
        let message: KafkaMessage
        let incoming: IncomingJob
        /// The job's Kafka key ("matchId:shard" for an event's token jobs).
        let key: String

        var job: PushJob? {
            if case .job(let job) = incoming { return job }
            return nil
        }

        var priority: Int { job?.priority ?? 5 }
    }

    let capacity: Int
    private(set) var entries: [Entry] = []
    /// Until when starting waits after an assignment (nil: not settling).
    private(set) var settlingUntil: ContinuousClock.Instant?
    /// Reads of progress marks under way (after assignments): nothing starts until they are done, so a job read
    /// again is matched against its marks before it is sent.
    private(set) var marksLoading = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var hasRoom: Bool { entries.count < capacity }
    var isEmpty: Bool { entries.isEmpty }

    mutating func append(_ entry: Entry) { entries.append(entry) }

    /// Starting waits until `deadline`, or until `settled()` or the lookahead fills up (after an assignment).
    mutating func settle(until deadline: ContinuousClock.Instant) { settlingUntil = deadline }

    /// A read of progress marks began; nothing starts until it ends.
    mutating func beginLoadingMarks() { marksLoading += 1 }

    /// A read of progress marks ended (read, cut short or failed).
    mutating func endLoadingMarks() { marksLoading = max(0, marksLoading - 1) }

    /// The intake has read everything fetched so far.
    mutating func settled() { settlingUntil = nil }

    /// Removes and returns the next entry to start, or nil when none may start now (or the lookahead is settling).
    /// `superseded`: a plain update with a newer state of its key behind it in the lookahead — not to be sent.
    mutating func takeNext(order: SendOrder, now: ContinuousClock.Instant = .now) -> (entry: Entry, superseded: Bool)? {
        guard marksLoading == 0 else { return nil }
        if let settlingUntil, now < settlingUntil, hasRoom { return nil }
        settlingUntil = nil
        func startable(_ entry: Entry) -> Bool { entry.job.map { order.mayStart($0, key: entry.key) } ?? true }
        let index = entries.firstIndex { $0.priority >= 10 && startable($0) } ?? entries.firstIndex(where: startable)
        guard let index else { return nil }
        let entry = entries.remove(at: index)
        // Only a plain update: a key event's alert is its own push (docs/OPERATING.md).
        guard let job = entry.job, job.kind == .liveActivityUpdate, job.priority < 10, SendOrder.isOrdered(job) else {
            return (entry, false)
        }
        let newer = entries.contains { other in
            other.key == entry.key && other.job.map { SendOrder.isOrdered($0) && $0.stateSeq > job.stateSeq } ?? false
        }
        return (entry, newer)
    }

    /// Drops the entries of revoked partitions (their next owner reads them again); returns how many.
    @discardableResult
    mutating func revoke(_ partitions: [KafkaTopicPartition]) -> Int {
        let revoked = Set(partitions)
        let before = entries.count
        entries.removeAll { revoked.contains($0.message.topicPartition) }
        return before - entries.count
    }

    /// Entries by priority (the queue-depth gauge).
    var countsByPriority: [Int: Int] {
        var counts: [Int: Int] = [10: 0, 5: 0, 1: 0]
        for entry in entries { counts[entry.priority, default: 0] += 1 }
        return counts
    }
}
