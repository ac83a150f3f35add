import Dispatch
import Runtime

/// Topic administration and consumer-group lag, over one librdkafka client.
///
/// Every call blocks inside librdkafka, so each runs on this admin's serial queue.
///
/// - Important: On Tansu, ListOffsets "latest" (used by ``highWatermarks(topics:timeout:)`` and
///   ``lag(group:topics:timeout:)``) answers the last record batch's base offset + 1, not the real
///   end offset. It is exact only when every batch holds one record (produce and await each
///   delivery before the next, or `linger.ms=0` + `batch.num.messages=1`). On Apache Kafka it is
///   exact. Services report lag from ``KafkaConsumer/partitionLag`` (fetch high watermark) instead.
public final class KafkaAdmin: Sendable {
    private let client: RDKafkaClient
    private let queue: DispatchQueue
    private let logger: Logger

    /// Creates the admin client (no connection is made until the first call).
    public init(configuration: KafkaAdminConfiguration, logger: Logger) throws {
        self.logger = logger
        let context = RDKafkaCallbackContext(logger: logger.child("librdkafka"))
        client = try RDKafkaClient(kind: .producer, properties: configuration.librdkafkaProperties, context: context)
        queue = DispatchQueue(label: "kafka.admin.\(configuration.clientId)")
    }

    /// Creates the topics that do not exist yet (an existing topic is not an error), then waits
    /// until the metadata shows every topic, bounded by `timeout`.
    /// - Throws: ``KafkaError`` naming the first topic that could not be created.
    public func createTopics(_ specs: [KafkaTopicSpec], timeout: Duration = .seconds(10)) async throws {
        guard !specs.isEmpty else { return }
        let milliseconds = timeout.timeoutMilliseconds
        let outcome = try await BlockingCalls.run(on: queue) { [client] in try client.createTopics(specs, timeoutMs: milliseconds) }
        for spec in specs {
            switch outcome[spec.name] {
            case .some(.some(let error)) where error.code == KafkaError.topicAlreadyExistsCode:
                logger.debug("topic already exists", ["topic": spec.name])
            case .some(.some(let error)):
                throw error
            default:
                logger.info("topic created", ["topic": spec.name, "partitions": String(spec.partitions)])
            }
        }
        try await waitForTopics(specs.map(\.name), timeout: timeout)
    }

    /// Deletes the topics (one that does not exist is not an error).
    /// - Throws: ``KafkaError`` naming the first topic that could not be deleted.
    public func deleteTopics(_ names: [String], timeout: Duration = .seconds(10)) async throws {
        guard !names.isEmpty else { return }
        let milliseconds = timeout.timeoutMilliseconds
        let outcome = try await BlockingCalls.run(on: queue) { [client] in try client.deleteTopics(names, timeoutMs: milliseconds) }
        for name in names {
            if case .some(.some(let error)) = outcome[name], error.code != KafkaError.unknownTopicCode { throw error }
            logger.info("topic deleted", ["topic": name])
        }
    }

    /// All topics with their partitions, from the cluster metadata.
    public func listTopics(timeout: Duration = .seconds(5)) async throws -> [KafkaTopicDescription] {
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [client] in try client.topicMetadata(timeoutMs: milliseconds) }
    }

    /// One topic's description, or nil when the broker does not know it.
    public func describeTopic(_ name: String, timeout: Duration = .seconds(5)) async throws -> KafkaTopicDescription? {
        try await listTopics(timeout: timeout).first { $0.name == name }
    }

    /// The group's committed next-offset per partition of `topics` (partitions without a commit are absent).
    public func committedOffsets(group: String, topics: [String], timeout: Duration = .seconds(5)) async throws -> [KafkaTopicPartition: Int64] {
        let partitions = try await partitions(of: topics, timeout: timeout)
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [client] in
            try client.committedOffsets(group: group, partitions: partitions, timeoutMs: milliseconds)
        }
    }

    /// Low and high watermark per partition of `topics`, from ListOffsets (see the Tansu note above).
    public func highWatermarks(topics: [String], timeout: Duration = .seconds(5)) async throws -> [KafkaTopicPartition: KafkaWatermarks] {
        let partitions = try await partitions(of: topics, timeout: timeout)
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [client] in
            var result: [KafkaTopicPartition: KafkaWatermarks] = [:]
            for partition in partitions { let (low, high) = try client.watermarks(of: partition, timeoutMs: milliseconds)
                result[partition] = KafkaWatermarks(low: low, high: high) }
            return result
        }
    }

    /// The group's lag on every partition of `topics`: end offset − committed offset (or − low
    /// watermark where the group never committed), sorted by topic and partition.
    public func lag(group: String, topics: [String], timeout: Duration = .seconds(5)) async throws -> [KafkaPartitionLag] {
        let committed = try await committedOffsets(group: group, topics: topics, timeout: timeout)
        let watermarks = try await highWatermarks(topics: topics, timeout: timeout)
        return watermarks.keys.sorted().map { partition in
            let marks = watermarks[partition]!
            let offset = committed[partition]
            return KafkaPartitionLag(topic: partition.topic, partition: partition.partition, committed: offset,
                                     endOffset: marks.high, lag: max(0, marks.high - (offset ?? marks.low)))
        }
    }

    private func partitions(of topics: [String], timeout: Duration) async throws -> [KafkaTopicPartition] {
        let known = try await listTopics(timeout: timeout)
        return try topics.flatMap { name -> [KafkaTopicPartition] in
            guard let topic = known.first(where: { $0.name == name }) else {
                throw KafkaError(code: 3, name: "UNKNOWN_TOPIC_OR_PART", message: "the broker does not know this topic",
                                 operation: "partitions of \(name)", isRetriable: true)
            }
            return topic.partitions.map { KafkaTopicPartition(topic: name, partition: $0) }
        }
    }

    private func waitForTopics(_ names: [String], timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let known = Set(try await listTopics(timeout: timeout).filter { !$0.partitions.isEmpty }.map(\.name))
            let missing = names.filter { !known.contains($0) }
            if missing.isEmpty { return }
            guard ContinuousClock.now < deadline else {
                throw KafkaError(code: KafkaError.timedOutCode, name: "_TIMED_OUT", message: "not in metadata yet",
                                 operation: "create topics \(missing.joined(separator: ","))", isRetriable: true)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
