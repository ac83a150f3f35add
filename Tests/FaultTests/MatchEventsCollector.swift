import Contracts
import PipelineTestSupport
import Foundation
import Kafka
import Runtime
import Synchronization

/// Reads `match.events` with a consumer group of its own (fresh per run, starting at the end of the
/// topic) and keeps the priority-10 events of one match, deduplicated by `eventId`: the set of
/// key events the detector emitted, against which the followers' alerts are checked. Reading the
/// topic (rather than the detector's `detector_events_total`) survives the detector's kill -9
/// (its counters restart at 0) and gives each event's alert text, which identifies its push.
final class MatchEventsCollector: Sendable {
    /// One emitted key event.
    struct KeyEventRecord: Sendable, Equatable {
        var eventId: String
        var kind: String
        var emittedAt: Int64
        var title: String
        var body: String
        /// How the alert is recognised in a push: "title|body".
        var alertKey: String { "\(title)|\(body)" }
    }

    private let consumer: KafkaConsumer
    private let matchId: String
    private let assigned = AssignedFlag()
    private let storage = LockedValue<(events: [String: KeyEventRecord], seen: Int, copies: Int)>(([:], 0, 0))
    private let task = LockedValue<Task<Void, Never>?>(nil)

    init(brokers: String, matchId: String) throws {
        self.matchId = matchId
        var configuration = KafkaConsumerConfiguration(bootstrapServers: brokers, clientId: "fault-suite",
                                                       groupId: "fault-suite.events.\(matchId)", topics: [Topic.matchEvents.name])
        configuration.autoOffsetReset = .latest
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        let flag = assigned
        consumer = try KafkaConsumer(configuration: configuration, logger: Logger(label: "fault-suite.kafka", minimumLevel: .error),
                                     onRebalance: { event in
                                         if case .assigned(let partitions) = event, !partitions.isEmpty { flag.value.withLock { $0 = true } }
                                     })
    }

    /// Starts polling in the background; returns once the group has its partitions (bounded).
    func start(timeout: Duration = .seconds(60)) async throws {
        let consumer = consumer
        task.withLock { $0 = Task { [self] in
            while !Task.isCancelled {
                guard let message = try? await consumer.poll(timeout: .milliseconds(200)) else { continue }
                record(message.value)
                // Committed, so that a rejoin after a broker pause resumes here instead of at "latest".
                try? await consumer.commit(message)
            }
        } }
        let deadline = ContinuousClock.now + timeout
        while !assigned.value.withLock({ $0 }) {
            guard ContinuousClock.now < deadline else { throw PipelineTestFailure("match.events consumer not assigned within \(timeout)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        // One more poll round so the fetch position is resolved before the match starts.
        try await Task.sleep(for: .seconds(1))
    }

    private func record(_ bytes: [UInt8]) {
        guard let event = try? MessageCodec.decode(MatchBusEvent.self, from: bytes), event.matchId == matchId else { return }
        storage.withLock { storage in
            storage.seen += 1
            guard let key = event.keyEvent, key.priority >= 10, let alert = key.alert else { return }
            if storage.events[event.eventId] != nil { storage.copies += 1; return }
            storage.events[event.eventId] = KeyEventRecord(eventId: event.eventId, kind: key.kind.rawValue, emittedAt: event.emittedAt,
                                                           title: alert.title, body: alert.body)
        }
    }

    /// Priority-10 events so far, oldest first.
    var keyEvents: [KeyEventRecord] { storage.withLock { $0.events.values.sorted { $0.emittedAt < $1.emittedAt } } }
    /// Events of the match read (any priority, copies included).
    var eventsSeen: Int { storage.withLock { $0.seen } }
    /// Priority-10 events read more than once (re-emitted after a restart).
    var keyEventCopies: Int { storage.withLock { $0.copies } }

    func stop() async {
        let running = task.withLock { task -> Task<Void, Never>? in defer { task = nil }; return task }
        running?.cancel()
        _ = await running?.value
        try? await consumer.close()
    }
}

/// Set once the consumer has partitions (shared with the rebalance callback).
final class AssignedFlag: Sendable {
    let value = LockedValue(false)
}
