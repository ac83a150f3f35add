import Kafka

/// Produces messages with at most `limit` awaiting their delivery report, so memory stays bounded
/// while the database stream and the broker work in parallel.
///
/// ``submit(key:value:)`` waits for the oldest in-flight message when the window is full;
/// ``finish()`` waits for all of them. The first failure is thrown (after every in-flight message
/// has been awaited), so nothing is committed unless every message was acknowledged.
public struct JobWindow {
    let producer: KafkaProducer
    let topic: String
    let limit: Int
    private var inFlight: [Task<KafkaDeliveryReport, any Error>] = []
    private var head = 0
    private var firstError: (any Error)?
    /// Messages acknowledged so far.
    public private(set) var acknowledged = 0
    /// The highest acknowledged offset per partition of `topic`: where a consumer of the jobs must have
    /// committed past for every message of this window to be done.
    public private(set) var highestOffsets: [Int32: Int64] = [:]

    public init(producer: KafkaProducer, topic: String, limit: Int) {
        self.producer = producer
        self.topic = topic
        self.limit = max(1, limit)
    }

    /// Starts producing one message, first waiting for the oldest one if `limit` are in flight.
    /// - Throws: the first delivery failure seen so far.
    public mutating func submit(key: String, value: [UInt8]) async throws {
        while inFlight.count - head >= limit { await awaitOldest() }
        if let firstError { throw firstError }
        let (producer, topic) = (producer, topic)
        inFlight.append(Task { try await producer.send(topic: topic, key: Array(key.utf8), value: value) })
        if head > 256 {
            inFlight.removeFirst(head)
            head = 0
        }
    }

    /// Waits for every message in flight.
    /// - Throws: the first delivery failure.
    public mutating func finish() async throws {
        while head < inFlight.count { await awaitOldest() }
        inFlight = []
        head = 0
        if let firstError { throw firstError }
    }

    private mutating func awaitOldest() async {
        let task = inFlight[head]
        head += 1
        do {
            let report = try await task.value
            acknowledged += 1
            highestOffsets[report.partition] = max(highestOffsets[report.partition] ?? -1, report.offset)
        } catch {
            if firstError == nil { firstError = error }
        }
    }
}
