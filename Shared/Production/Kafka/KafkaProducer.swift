import Dispatch
import Runtime
import Synchronization

/// An idempotent Kafka producer (`enable.idempotence=true`, `acks=all`).
///
/// Delivery reports are served by a dedicated poll thread; ``send(topic:key:value:headers:)``
/// returns once the broker acknowledged the message. Call ``shutdown(timeout:)`` before dropping
/// the last reference so that queued messages are delivered.
///
/// Self-healing: when a delivery fails in a way that leaves the librdkafka instance unable to
/// produce again (a fatal error, or the idempotence state refused by the broker: `PRODUCER_FENCED`,
/// `INVALID_PRODUCER_EPOCH`, `UNKNOWN_PRODUCER_ID`, `OUT_OF_ORDER_SEQUENCE_NUMBER` — what a broker
/// stall longer than `messageTimeout` leaves behind on Tansu), that message's send still fails (its
/// caller must not commit the work that depended on it) and the producer replaces its instance, so
/// the caller's retry goes through a fresh one (`kafka_producer_recreated_total`).
public final class KafkaProducer: Sendable {
    /// One librdkafka instance and the thread serving its callbacks.
    private final class Instance: Sendable {
        let client: RDKafkaClient
        let pollThread: RDKafkaPollThread
        let generation: Int

        init(configuration: KafkaProducerConfiguration, logger: Logger, generation: Int) throws {
            let context = RDKafkaCallbackContext(logger: logger.child("librdkafka"), delivers: true)
            client = try RDKafkaClient(kind: .producer, properties: configuration.librdkafkaProperties, context: context)
            pollThread = RDKafkaPollThread(client: client, name: "kafka-producer-poll")
            self.generation = generation
        }

        deinit { pollThread.requestStop() }
    }

    private let current: LockedValue<Instance>
    private var client: RDKafkaClient { current.withLock { $0.client } }
    private let recreated: Counter?
    private let blockingQueue: DispatchQueue
    /// Broker probes (``checkBroker(timeout:)``), apart from flushes.
    private let probeQueue: DispatchQueue
    private let configuration: KafkaProducerConfiguration
    private let logger: Logger
    private let isShutDown = Atomic<Bool>(false)

    /// Creates the producer and starts its poll thread.
    /// - Parameter metrics: where `kafka_producer_recreated_total{client}` is counted; nil counts nothing.
    /// - Throws: ``KafkaConfigurationError`` for a rejected property, ``KafkaError`` if librdkafka refuses.
    public init(configuration: KafkaProducerConfiguration, logger: Logger, metrics: MetricsRegistry? = nil) throws {
        self.configuration = configuration
        self.logger = logger
        current = LockedValue(try Instance(configuration: configuration, logger: logger, generation: 0))
        recreated = metrics?.counter("kafka_producer_recreated_total",
                                     help: "Producer instances replaced after a fatal or idempotence-state delivery failure",
                                     labels: ["client": configuration.clientId])
        blockingQueue = DispatchQueue(label: "kafka.producer.\(configuration.clientId)")
        probeQueue = DispatchQueue(label: "kafka.producer.probe.\(configuration.clientId)")
        logger.info("kafka producer started", ["client": client.name, "brokers": configuration.bootstrapServers])
    }

    /// Succeeds when a broker answers a metadata request within `timeout` (a paused broker keeps
    /// its connections open, so only an answer counts). For readiness probes.
    /// - Throws: ``KafkaError`` (`_TIMED_OUT`, `_TRANSPORT`, …).
    public func checkBroker(timeout: Duration = .seconds(2)) async throws {
        let milliseconds = timeout.timeoutMilliseconds
        try await BlockingCalls.run(on: probeQueue) { [client] in try client.brokerRoundTrip(timeoutMs: milliseconds) }
    }

    /// Produces one message and waits for the broker's acknowledgement.
    ///
    /// When librdkafka's local queue is full it retries every 10 ms for up to `messageTimeout`.
    /// - Throws: ``KafkaError`` from the enqueue or from the delivery report.
    public func send(topic: String, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader] = []) async throws -> KafkaDeliveryReport {
        let message = KafkaOutgoingMessage(topic: topic, key: key, value: value, headers: headers)
        let promise = DeliveryPromise()
        if let error = await enqueueRetryingWhenFull(message, complete: promise.fulfill) {
            throw error
        }
        return try await promise.value()
    }

    /// Produces one message with a UTF-8 key and `Data`-like value and waits for the acknowledgement.
    public func send(topic: String, key: String, value: some Sequence<UInt8>, headers: [KafkaHeader] = []) async throws -> KafkaDeliveryReport {
        try await send(topic: topic, key: Array(key.utf8), value: Array(value), headers: headers)
    }

    /// Enqueues all messages in order, then waits for every delivery report (fire and collect).
    ///
    /// Faster than awaiting each ``send(topic:key:value:headers:)`` because messages are batched.
    /// Returns one result per message, in input order; a message that could not be enqueued fails
    /// without affecting the others.
    public func sendAll(_ messages: [KafkaOutgoingMessage]) async -> [Result<KafkaDeliveryReport, KafkaError>] {
        guard !messages.isEmpty else { return [] }
        let collector = DeliveryCollector(count: messages.count)
        for (index, message) in messages.enumerated() {
            if let error = await enqueueRetryingWhenFull(message, complete: { collector.record(index, $0) }) {
                collector.record(index, .failure(error))
            }
        }
        return await collector.results()
    }

    /// Waits until every queued message is delivered or `timeout` passes.
    /// - Throws: ``KafkaError`` `_TIMED_OUT` naming how many messages are still outstanding.
    public func flush(timeout: Duration = .seconds(10)) async throws {
        let milliseconds = timeout.timeoutMilliseconds
        try await BlockingCalls.run(on: blockingQueue) { [client] in try client.flush(timeoutMs: milliseconds) }
    }

    /// Flushes, then stops the poll thread. Later sends fail with a `_STATE` error.
    ///
    /// Whatever is still outstanding then (the flush timed out, or a send slipped in after it) is purged and its
    /// delivery report served before the thread stops (within ``shutdownDrain``): every `send` waiting on a report
    /// gets one, a failure, instead of waiting for ever on a thread that no longer polls.
    public func shutdown(timeout: Duration = .seconds(10)) async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let instance = current.withLock { $0 }
        defer { logger.info("kafka producer stopped", ["client": instance.client.name]) }
        var flushFailure: (any Error)?
        do {
            try await flush(timeout: timeout)
        } catch {
            flushFailure = error
        }
        instance.pollThread.drainAndStop(within: Self.shutdownDrain)
        await instance.pollThread.stop()
        if let flushFailure { throw flushFailure }
    }

    /// How long a shutdown serves the purged messages' delivery reports.
    static let shutdownDrain: Duration = .seconds(2)

    /// Messages enqueued and not yet acknowledged.
    public var outstandingMessages: Int { Int(client.outstanding) }

    private func enqueueRetryingWhenFull(
        _ message: KafkaOutgoingMessage, complete: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void
    ) async -> KafkaError? {
        let deadline = ContinuousClock.now + configuration.messageTimeout
        while true {
            guard let (error, replaced) = enqueueOnce(message, complete: complete) else { return nil }
            if replaced {
                // Refused at enqueue (no delivery report will come) by an instance now replaced: try the fresh one.
                guard ContinuousClock.now < deadline else { return error }
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            guard error.code == KafkaError.queueFullCode, ContinuousClock.now < deadline else { return error }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Produces one message without waiting for anything: its delivery report goes to `complete` (on the producer's
    /// poll thread). Nothing is retried here: when librdkafka refuses the message (its queue is full, the producer is
    /// shut down) the error is returned at once and `complete` is never called. For records whose loss only costs work
    /// done again (apns-sender's progress marks).
    public func produceWithoutWaiting(
        _ message: KafkaOutgoingMessage, complete: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void
    ) -> KafkaError? {
        enqueueOnce(message, complete: complete)?.error
    }

    /// One enqueue on the current instance: nil when enqueued, else the error and whether it left the instance
    /// unusable (it is then replaced).
    private func enqueueOnce(
        _ message: KafkaOutgoingMessage, complete: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void
    ) -> (error: KafkaError, replaced: Bool)? {
        guard !isShutDown.load(ordering: .acquiring) else { return (.closed("produce to \(message.topic)"), false) }
        let instance = current.withLock { $0 }
        let handler = RDKafkaDeliveryHandler { [weak self] result in
            if case .failure(let error) = result, Self.leavesInstanceUnusable(error) {
                self?.replace(instance.generation, after: error)
            }
            complete(result)
        }
        guard let error = instance.client.enqueue(message, handler: handler) else { return nil }
        guard Self.leavesInstanceUnusable(error) || instance.client.fatalError(operation: "produce to \(message.topic)") != nil else {
            return (error, false)
        }
        replace(instance.generation, after: error)
        return (error, true)
    }

    private static func leavesInstanceUnusable(_ error: KafkaError) -> Bool {
        error.isFatal || KafkaError.instanceUnusableCodes.contains(error.code)
    }

    /// Replaces instance `generation` (once: later failures of the same generation find it replaced)
    /// with a fresh one. The old instance's outstanding messages fail (purged) and its thread stops.
    private func replace(_ generation: Int, after error: KafkaError) {
        guard !isShutDown.load(ordering: .acquiring) else { return }
        let old: Instance? = current.withLock { current in
            guard current.generation == generation else { return nil }
            do {
                let old = current
                current = try Instance(configuration: configuration, logger: logger, generation: generation + 1)
                return old
            } catch {
                logger.error("could not create a replacement producer instance", ["error": "\(error)"])
                return nil
            }
        }
        guard let old else { return }
        recreated?.increment()
        logger.error("producer instance can no longer produce; replaced by a fresh one (its failed sends are reported to their callers)", [
            "error": error.description, "client": old.client.name, "generation": String(generation + 1),
        ])
        // The old instance's own poll thread fails what it holds (again each round: a send that took
        // the old instance just before the swap may still enqueue on it) and serves those reports
        // until nothing is outstanding — bounded, as every message is by `messageTimeout` — then stops.
        old.pollThread.drainAndStop(within: configuration.messageTimeout + .seconds(5))
    }
}

/// The delivery result of one message, which may arrive before or after someone awaits it.
private final class DeliveryPromise: Sendable {
    private struct State {
        var result: Result<KafkaDeliveryReport, KafkaError>?
        var continuation: CheckedContinuation<KafkaDeliveryReport, any Error>?
    }

    private let state = LockedValue(State())

    @Sendable func fulfill(_ result: Result<KafkaDeliveryReport, KafkaError>) {
        let waiting = state.withLock { state in
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(with: result.mapError { $0 as any Error })
    }

    func value() async throws -> KafkaDeliveryReport {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state in
                if state.result == nil { state.continuation = continuation }
                return state.result
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }
}

/// Gathers the delivery results of one ``KafkaProducer/sendAll(_:)`` call.
private final class DeliveryCollector: Sendable {
    private struct State {
        var results: [Result<KafkaDeliveryReport, KafkaError>?]
        var remaining: Int
        var continuation: CheckedContinuation<[Result<KafkaDeliveryReport, KafkaError>], Never>?
    }

    private let state: LockedValue<State>

    init(count: Int) {
        state = LockedValue(State(results: Array(repeating: nil, count: count), remaining: count))
    }

    /// Waits until every message has a result; the results in input order.
    func results() async -> [Result<KafkaDeliveryReport, KafkaError>] {
        await withCheckedContinuation { continuation in
            let ready: [Result<KafkaDeliveryReport, KafkaError>]? = state.withLock { state in
                guard state.remaining > 0 else { return state.results.map { $0! } }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func record(_ index: Int, _ result: Result<KafkaDeliveryReport, KafkaError>) {
        let finished: (CheckedContinuation<[Result<KafkaDeliveryReport, KafkaError>], Never>, [Result<KafkaDeliveryReport, KafkaError>])? =
            state.withLock { state in
                guard state.results[index] == nil else { return nil }
                state.results[index] = result
                state.remaining -= 1
                guard state.remaining == 0, let continuation = state.continuation else { return nil }
                state.continuation = nil
                return (continuation, state.results.map { $0! })
            }
        if let (continuation, results) = finished { continuation.resume(returning: results) }
    }
}
