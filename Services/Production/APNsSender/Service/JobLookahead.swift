import Contracts
import Kafka
import Runtime

/// Jobs taken off the topic but not started yet, at most `capacity`: the window in which apns-sender reorders.
///
/// The next job to start is the oldest priority-10 job that may start (`SendOrder.mayStart`), else the oldest
/// job of any priority that may: a key event or an end is never queued behind plain updates apns-sender has
/// already read, and a plain update it overtook is then superseded at its start (`SendOrder.beginRound`).
/// Messages that are not sendable jobs (invalid, poison) go in order like plain updates.
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

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var hasRoom: Bool { entries.count < capacity }
    var isEmpty: Bool { entries.isEmpty }

    mutating func append(_ entry: Entry) { entries.append(entry) }

    /// Removes and returns the next entry to start, or nil when none may start now.
    mutating func takeNext(order: SendOrder) -> Entry? {
        func startable(_ entry: Entry) -> Bool { entry.job.map { order.mayStart($0, key: entry.key) } ?? true }
        let index = entries.firstIndex { $0.priority >= 10 && startable($0) } ?? entries.firstIndex(where: startable)
        guard let index else { return nil }
        return entries.remove(at: index)
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
