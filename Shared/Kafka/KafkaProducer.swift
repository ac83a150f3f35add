import Dispatch
import Runtime
import Synchronization

/// An idempotent Kafka producer (`enable.idempotence=true`, `acks=all`).
///
/// Delivery reports are served by a dedicated poll thread; ``send(topic:key:value:headers:)``
/// returns once the broker acknowledged the message. Call ``shutdown(timeout:)`` before dropping
/// the last reference so that queued messages are delivered.
public final class KafkaProducer: Sendable {
    private let client: RDKafkaClient
    private let pollThread: RDKafkaPollThread
    private let blockingQueue: DispatchQueue
    private let configuration: KafkaProducerConfiguration
    private let logger: Logger
    private let isShutDown = Atomic<Bool>(false)

    /// Creates the producer and starts its poll thread.
    /// - Throws: ``KafkaConfigurationError`` for a rejected property, ``KafkaError`` if librdkafka refuses.
    public init(configuration: KafkaProducerConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        let context = RDKafkaCallbackContext(logger: logger.child("librdkafka"), delivers: true)
        client = try RDKafkaClient(kind: .producer, properties: configuration.librdkafkaProperties, context: context)
        pollThread = RDKafkaPollThread(client: client, name: "kafka-producer-poll")
        blockingQueue = DispatchQueue(label: "kafka.producer.\(configuration.clientId)")
        logger.info("kafka producer started", ["client": client.name, "brokers": configuration.bootstrapServers])
    }

    deinit {
        pollThread.requestStop()
    }

    /// Produces one message and waits for the broker's acknowledgement.
    ///
    /// When librdkafka's local queue is full it retries every 10 ms for up to `messageTimeout`.
    /// - Throws: ``KafkaError`` from the enqueue or from the delivery report.
    public func send(topic: String, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader] = []) async throws -> KafkaDeliveryReport {
        let message = KafkaOutgoingMessage(topic: topic, key: key, value: value, headers: headers)
        let promise = DeliveryPromise()
        if let error = await enqueueRetryingWhenFull(message, handler: RDKafkaDeliveryHandler(promise.fulfill)) {
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
            let handler = RDKafkaDeliveryHandler { collector.record(index, $0) }
            if let error = await enqueueRetryingWhenFull(message, handler: handler) {
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
    public func shutdown(timeout: Duration = .seconds(10)) async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        defer { logger.info("kafka producer stopped", ["client": client.name]) }
        do {
            try await flush(timeout: timeout)
        } catch {
            await pollThread.stop()
            throw error
        }
        await pollThread.stop()
    }

    /// Messages enqueued and not yet acknowledged.
    public var outstandingMessages: Int { Int(client.outstanding) }

    private func enqueueRetryingWhenFull(_ message: KafkaOutgoingMessage, handler: RDKafkaDeliveryHandler) async -> KafkaError? {
        let deadline = ContinuousClock.now + configuration.messageTimeout
        while true {
            guard !isShutDown.load(ordering: .acquiring) else { return .closed("produce to \(message.topic)") }
            guard let error = client.enqueue(message, handler: handler) else { return nil }
            guard error.code == KafkaError.queueFullCode, ContinuousClock.now < deadline else { return error }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The delivery result of one message, which may arrive before or after someone awaits it.
private final class DeliveryPromise: Sendable {
    private struct State {
        var result: Result<KafkaDeliveryReport, KafkaError>?
        var continuation: CheckedContinuation<KafkaDeliveryReport, any Error>?
    }

    private let state = Mutex(State())

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

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(results: Array(repeating: nil, count: count), remaining: count))
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
