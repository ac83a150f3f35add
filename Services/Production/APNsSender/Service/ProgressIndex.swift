import Contracts
import Foundation
import Kafka

/// The marks read back for the jobs partitions this member was assigned (`PushProgress`), folded per job message:
/// the union of every mark of that message. A message's entry is taken once, when the dispatcher picks the message.
struct ProgressIndex: Sendable {
    /// What is known of one job message.
    struct Entry: Sendable, Equatable {
        /// The job message's Kafka timestamp (ms): a mark matches only the message it was written for.
        var messageTimestamp: Int64
        /// The message is final: nothing of it is to be sent again.
        var done = false
        /// Targets APNs accepted.
        var accepted = IndexSet()
        /// Targets APNs refused for their token, by index.
        var refused: [Int: PushProgress.Refusal] = [:]
        /// The newest mark's time (Unix ms), given to every reused answer: an answer of an earlier round reads a
        /// little later than it came.
        var answeredAt: Int64?

        /// Whether the entry says anything about target `index`.
        func answers(_ index: Int) -> Bool { accepted.contains(index) || refused[index] != nil }
    }

    /// A state a mark says reached devices (a job marked done, or with accepted targets): a job of the same key or
    /// channel with an older state must not be sent after it.
    enum StateSent: Sendable, Equatable {
        /// A token job's per-device order: its Kafka key and `stateSeq` (`SendOrder.noteSent`).
        case key(String, stateSeq: Int64)
        /// A broadcast job's channel and `stateSeq` (`BroadcastCoalescer.taken`).
        case channel(String, stateSeq: Int64)

        init?(_ mark: PushProgress) {
            guard mark.kind == .done || !mark.accepted.isEmpty, let stateSeq = mark.stateSeq else { return nil }
            if let key = mark.orderKey {
                self = .key(key, stateSeq: stateSeq)
            } else if let channel = mark.channelId {
                self = .channel(channel, stateSeq: stateSeq)
            } else {
                return nil
            }
        }
    }

    /// The entries by the job message their marks are about.
    private(set) var entries: [JobMessageID: Entry] = [:]
    /// Per partition, the first offset read since its assignment: marks of earlier messages are not kept.
    private var firstRead: [KafkaTopicPartition: Int64] = [:]
    /// The jobs partitions assigned to this member: marks of others are not kept (a revocation during a read).
    private var assigned: Set<KafkaTopicPartition> = []

    /// What became of a mark given to `add`.
    enum Added: Equatable {
        /// Folded into its message's entry.
        case kept
        /// About a partition not assigned here, or a message before the first one read: not needed.
        case notNeeded
        /// Malformed for its kind, or about an older message at the same offset than the entry's: nothing changed.
        case refused
    }

    /// Folds one mark in.
    @discardableResult
    mutating func add(_ mark: PushProgress) -> Added {
        let id = JobMessageID(partition: KafkaTopicPartition(topic: mark.jobsTopic, partition: mark.partition), offset: mark.offset)
        guard assigned.contains(id.partition) else { return .notNeeded }
        if let first = firstRead[id.partition], mark.offset < first { return .notNeeded }
        var entry = entries[id] ?? Entry(messageTimestamp: mark.messageTimestamp)
        // Two messages at one offset (a recreated topic): the newer one's marks win.
        if entry.messageTimestamp != mark.messageTimestamp {
            guard mark.messageTimestamp > entry.messageTimestamp else { return .refused }
            entry = Entry(messageTimestamp: mark.messageTimestamp)
        }
        switch mark.kind {
        case .done:
            entry.done = true
        case .answered:
            guard let ranges = mark.acceptedRanges(targetCount: PushJob.maximumTargets),
                  mark.refused.allSatisfy({ (0..<PushJob.maximumTargets).contains($0.index) }) else { return .refused }
            for range in ranges { entry.accepted.insert(integersIn: range) }
            for refusal in mark.refused { entry.refused[refusal.index] = refusal }
            entry.answeredAt = max(entry.answeredAt ?? mark.at, mark.at)
        }
        entries[id] = entry
        return .kept
    }

    /// Removes and returns the entry of `message` when its marks were written for this very message.
    mutating func take(_ message: KafkaMessage) -> Entry? {
        let id = JobMessageID(message)
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        return entry.messageTimestamp == message.timestampMilliseconds ? entry : nil
    }

    /// `partitions` were assigned: their marks are kept from now on.
    mutating func assign(_ partitions: [KafkaTopicPartition]) {
        assigned.formUnion(partitions)
    }

    /// A message was read: the first one of its partition since the assignment drops the entries before it (the
    /// group's committed offset: those messages are not read again).
    mutating func noteRead(_ message: KafkaMessage) {
        let partition = message.topicPartition
        guard firstRead[partition] == nil else { return }
        firstRead[partition] = message.offset
        entries = entries.filter { $0.key.partition != partition || $0.key.offset >= message.offset }
    }

    /// Forgets the entries of `partitions` (revoked: their next owner reads the marks itself).
    mutating func forget(_ partitions: Set<KafkaTopicPartition>) {
        entries = entries.filter { !partitions.contains($0.key.partition) }
        for partition in partitions { firstRead[partition] = nil }
        assigned.subtract(partitions)
    }
}
