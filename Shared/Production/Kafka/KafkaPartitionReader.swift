import Dispatch
import Foundation
import Runtime

/// What one ``KafkaPartitionReader/read(_:since:maxBytes:timeout:)`` found.
public struct KafkaPartitionRead: Sendable {
    /// The messages read, per partition in offset order.
    public var messages: [KafkaMessage]
    /// False when the read stopped before the end it set out to reach (the byte cap or the timeout).
    public var complete: Bool

    public init(messages: [KafkaMessage], complete: Bool) {
        self.messages = messages
        self.complete = complete
    }
}

/// Reads chosen partitions of a topic from a point in time to their end, outside any consumer group (no offsets are
/// committed, no group is joined): what a member reads back of its own side topic after it takes over partitions.
///
/// Every call blocks inside librdkafka (ListOffsets by time, the watermarks, the fetches), so each runs on this
/// reader's serial queue, never on the caller's thread.
public final class KafkaPartitionReader: Sendable {
    private let client: RDKafkaClient
    private let queue: DispatchQueue
    private let logger: Logger

    /// Creates the consumer handle (no connection is made until the first call).
    /// - Throws: ``KafkaConfigurationError`` for a rejected property, ``KafkaError`` if creation fails.
    public init(cluster: KafkaCluster, clientId: String, logger: Logger) throws {
        self.logger = logger
        var properties = cluster.librdkafkaProperties
        properties.merge([
            "client.id": clientId,
            // librdkafka assigns only with a group id; this one never joins (no subscribe) and commits nothing.
            "group.id": clientId,
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            "enable.partition.eof": "false",
            "auto.offset.reset": "earliest",
        ]) { _, new in new }
        client = try RDKafkaClient(kind: .consumer, properties: properties, context: RDKafkaCallbackContext(logger: logger.child("librdkafka")),
                                   closesConsumer: false)
        queue = DispatchQueue(label: "kafka.partition-reader.\(clientId)")
    }

    /// The number of partitions of `topic`, or nil when the cluster does not know the topic.
    public func partitionCount(of topic: String, timeout: Duration = .seconds(5)) async throws -> Int? {
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [client] in
            try client.topicMetadata(timeoutMs: milliseconds).first { $0.name == topic }?.partitionCount
        }
    }

    /// Reads each of `partitions` from its first message at or after `since` up to its end as the broker gave it when
    /// the read began (later messages may come too). Stops early, with `complete` false, once `maxBytes` of values
    /// were read or `timeout` passed.
    public func read(_ partitions: [KafkaTopicPartition], since: Date, maxBytes: Int, timeout: Duration) async throws -> KafkaPartitionRead {
        guard !partitions.isEmpty else { return KafkaPartitionRead(messages: [], complete: true) }
        let deadline = ContinuousClock.now + timeout
        let sinceMs = Int64((since.timeIntervalSince1970 * 1000).rounded(.down))
        return try await BlockingCalls.run(on: queue) { [client, logger] in
            func remainingMs() -> Int32 { max(1, (deadline - ContinuousClock.now).timeoutMilliseconds) }
            let starts = try client.offsets(atOrAfter: sinceMs, of: partitions, timeoutMs: remainingMs())
            // The last offset to reach per partition (end − 1); partitions already at their end are not read.
            var lastToReach: [KafkaTopicPartition: Int64] = [:]
            var from: [KafkaTopicPartition: Int64] = [:]
            for partition in partitions {
                let end = try client.watermarks(of: partition, timeoutMs: remainingMs()).high
                guard let start = starts[partition], start >= 0, start < end else { continue }
                lastToReach[partition] = end - 1
                from[partition] = start
            }
            guard !from.isEmpty else { return KafkaPartitionRead(messages: [], complete: true) }
            try client.assign(from)
            defer {
                client.unassign()
                // Serve the main queue (errors, logs) this handle never polls otherwise.
                _ = client.poll(timeoutMs: 0)
            }
            var messages: [KafkaMessage] = []
            var bytes = 0
            func keep(_ message: KafkaMessage) {
                // A broker may start a little early (Tansu answers by record batch): what predates `since` is left out.
                guard message.timestampMilliseconds >= sinceMs else { return }
                messages.append(message)
                bytes += message.value.count
            }
            while !lastToReach.isEmpty {
                guard ContinuousClock.now < deadline, bytes < maxBytes else { return KafkaPartitionRead(messages: messages, complete: false) }
                guard let message = try client.consumerPoll(timeoutMs: min(100, remainingMs()), logger: logger) else { continue }
                keep(message)
                let partition = message.topicPartition
                if let last = lastToReach[partition], message.offset >= last { lastToReach[partition] = nil }
            }
            // The rest of the last record batches came in the same fetches (Tansu's end offset is the last batch's base
            // offset + 1): take what is already here.
            while ContinuousClock.now < deadline, bytes < maxBytes, let message = try client.consumerPoll(timeoutMs: 10, logger: logger) {
                keep(message)
            }
            return KafkaPartitionRead(messages: messages, complete: true)
        }
    }
}
