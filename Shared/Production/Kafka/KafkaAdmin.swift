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
///
/// Group reads (``committedOffsets(group:topics:timeout:)``, ``lag(group:topics:timeout:)``,
/// ``describeGroup(_:timeout:)``) go through a consumer handle of the group's own (made on first use, kept, never
/// subscribed: it joins nothing) and `rd_kafka_list_groups`, not through librdkafka's admin coordinator requests,
/// which can crash the process when a broker connection drops mid-request (see `RDKafkaGroupOps`). So an operator
/// polling lag during a broker failure cannot take the process down.
public final class KafkaAdmin: Sendable {
    private let client: RDKafkaClient
    private let queue: DispatchQueue
    private let logger: Logger
    private let configuration: KafkaAdminConfiguration
    private let context: RDKafkaCallbackContext
    /// One consumer handle per group read so far; touched only on `queue`.
    private let groupReaders = LockedValue<[String: RDKafkaClient]>([:])

    /// Creates the admin client (no connection is made until the first call).
    public init(configuration: KafkaAdminConfiguration, logger: Logger) throws {
        self.logger = logger
        self.configuration = configuration
        let context = RDKafkaCallbackContext(logger: logger.child("librdkafka"))
        self.context = context
        client = try RDKafkaClient(kind: .producer, properties: configuration.librdkafkaProperties, context: context)
        queue = DispatchQueue(label: "kafka.admin.\(configuration.clientId)")
    }

    /// Succeeds when a broker answers a metadata request within `timeout`; otherwise says why in terms of the settings
    /// to change: SASL refused, TLS failed, or nobody answered.
    /// - Throws: ``KafkaConnectionError``.
    public func verifyConnection(timeout: Duration = .seconds(10)) async throws(KafkaConnectionError) {
        let brokers = configuration.cluster.bootstrapServers
        let deadline = ContinuousClock.now + timeout
        // Short attempts, so a refused login or handshake (which librdkafka retries silently) ends the wait at once.
        while true {
            let attempt = min(Duration.seconds(1), max(.milliseconds(100), deadline - ContinuousClock.now)).timeoutMilliseconds
            do {
                try await BlockingCalls.run(on: queue) { [client] in try client.brokerRoundTrip(timeoutMs: attempt) }
                return
            } catch {
                if let failure = context.securityFailure.withLock({ $0 }) {
                    if failure.contains("SASL") || failure.contains("uthentication") || failure.contains("OAUTHBEARER") {
                        throw .authentication(brokers: brokers, detail: failure)
                    }
                    throw .tls(brokers: brokers, detail: failure)
                }
                guard ContinuousClock.now < deadline else { throw .unreachable(brokers: brokers, detail: String(describing: error)) }
            }
        }
    }

    /// The consumer handle that reads `group`'s offsets (call on `queue`).
    private func reader(for group: String) throws -> RDKafkaClient {
        if let reader = groupReaders.withLock({ $0[group] }) { return reader }
        var properties = configuration.librdkafkaProperties
        properties["group.id"] = group
        properties["enable.auto.commit"] = "false"
        properties["enable.auto.offset.store"] = "false"
        let context = RDKafkaCallbackContext(logger: logger.child("librdkafka"))
        let reader = try RDKafkaClient(kind: .consumer, properties: properties, context: context, closesConsumer: false)
        groupReaders.withLock { $0[group] = reader }
        return reader
    }

    /// The group's state and member count from its coordinator (`Empty` with 0 members: nobody consumes).
    public func describeGroup(_ group: String, timeout: Duration = .seconds(5)) async throws -> KafkaGroupDescription {
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [client] in try client.describeGroup(group, timeoutMs: milliseconds) }
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
                logger.info("topic created", ["topic": spec.name, "partitions": String(spec.partitions),
                                              "replication": String(spec.replicationFactor)])
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

    /// The brokers, and every topic with its partitions' replication.
    public func clusterMetadata(timeout: Duration = .seconds(5)) async throws -> KafkaClusterMetadata {
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [client] in try client.clusterMetadata(timeoutMs: milliseconds) }
    }

    /// The configs set on each of `topics` (not the broker defaults), by topic.
    public func topicOverrides(_ topics: [String], timeout: Duration = .seconds(10)) async throws -> [String: [String: String]] {
        guard !topics.isEmpty else { return [:] }
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [client] in try client.topicOverrides(topics, timeoutMs: milliseconds) }
    }

    /// Applies one planned change (``KafkaTopicReconciliation``).
    public func apply(_ change: KafkaTopicReconciliation.Change, timeout: Duration = .seconds(30)) async throws {
        switch change {
        case .create(let spec):
            try await createTopics([spec], timeout: timeout)
        case .addPartitions(let topic, _, let to):
            let milliseconds = timeout.timeoutMilliseconds
            try await BlockingCalls.run(on: queue) { [client] in try client.createPartitions(topic, total: to, timeoutMs: milliseconds) }
        case .setConfigs(let topic, let overrides, _):
            let milliseconds = timeout.timeoutMilliseconds
            try await BlockingCalls.run(on: queue) { [client] in try client.replaceTopicOverrides(topic, config: overrides, timeoutMs: milliseconds) }
        }
    }

    /// One topic's description, or nil when the broker does not know it.
    public func describeTopic(_ name: String, timeout: Duration = .seconds(5)) async throws -> KafkaTopicDescription? {
        try await listTopics(timeout: timeout).first { $0.name == name }
    }

    /// The group's committed next-offset per partition of `topics` (partitions without a commit are absent).
    public func committedOffsets(group: String, topics: [String], timeout: Duration = .seconds(5)) async throws -> [KafkaTopicPartition: Int64] {
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [self] in
            try reader(for: group).committed(try partitionsNow(of: topics, timeoutMs: milliseconds), timeoutMs: milliseconds)
        }
    }

    /// Low and high watermark per partition of `topics`, from ListOffsets (see the Tansu note above).
    public func highWatermarks(topics: [String], timeout: Duration = .seconds(5)) async throws -> [KafkaTopicPartition: KafkaWatermarks] {
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [self] in
            try watermarksNow(try partitionsNow(of: topics, timeoutMs: milliseconds), timeoutMs: milliseconds)
        }
    }

    /// The group's lag on every partition of `topics` as the broker sees it (as KEDA and Burrow read it): end offset −
    /// committed offset (or − low watermark where the group never committed), sorted by topic and partition.
    public func lag(group: String, topics: [String], timeout: Duration = .seconds(5)) async throws -> [KafkaPartitionLag] {
        let milliseconds = timeout.timeoutMilliseconds
        return try await BlockingCalls.run(on: queue) { [self] in try lagNow(group: group, topics: topics, timeoutMs: milliseconds) }
    }

    /// Reads the group's lag (and its state, where the broker describes groups) on this admin's queue without suspending anyone, then calls `completion` there.
    /// For code that must not wait (a consumer's poll path).
    func sample(group: String, topics: [String], timeout: Duration,
                completion: @escaping @Sendable (Result<(lag: [KafkaPartitionLag], group: KafkaGroupDescription?), any Error>) -> Void) {
        let milliseconds = timeout.timeoutMilliseconds
        queue.async { [self] in
            completion(Result {
                let lag = try lagNow(group: group, topics: topics, timeoutMs: milliseconds)
                // A broker that does not describe groups (Tansu) leaves the group nil: the commits alone decide.
                return (lag, try? client.describeGroup(group, timeoutMs: milliseconds))
            })
        }
    }

    /// Blocking; on `queue` only.
    private func lagNow(group: String, topics: [String], timeoutMs: Int32) throws -> [KafkaPartitionLag] {
        let partitions = try partitionsNow(of: topics, timeoutMs: timeoutMs)
        let committed = try reader(for: group).committed(partitions, timeoutMs: timeoutMs)
        let watermarks = try watermarksNow(partitions, timeoutMs: timeoutMs)
        return watermarks.keys.sorted().map { partition in
            let marks = watermarks[partition]!
            let offset = committed[partition]
            return KafkaPartitionLag(topic: partition.topic, partition: partition.partition, committed: offset,
                                     endOffset: marks.high, lag: max(0, marks.high - (offset ?? marks.low)))
        }
    }

    /// Blocking; on `queue` only.
    private func watermarksNow(_ partitions: [KafkaTopicPartition], timeoutMs: Int32) throws -> [KafkaTopicPartition: KafkaWatermarks] {
        var result: [KafkaTopicPartition: KafkaWatermarks] = [:]
        for partition in partitions {
            let (low, high) = try client.watermarks(of: partition, timeoutMs: timeoutMs)
            result[partition] = KafkaWatermarks(low: low, high: high)
        }
        return result
    }

    /// Blocking; on `queue` only.
    private func partitionsNow(of topics: [String], timeoutMs: Int32) throws -> [KafkaTopicPartition] {
        let known = try client.topicMetadata(timeoutMs: timeoutMs)
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
