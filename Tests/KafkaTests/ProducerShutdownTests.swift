import Kafka
import Runtime
import SharedTestSupport
import Testing

/// A producer's shutdown answers every send still waiting on a delivery report: before it did, a shutdown whose
/// flush timed out stopped the poll thread with messages outstanding, and their senders waited for ever.
@Suite("producer shutdown", .timeLimit(.minutes(1)))
struct ProducerShutdownTests {
    @Test func aSendStillWaitingWhenTheFlushTimesOutFailsInsteadOfWaitingForEver() async throws {
        // No broker: the message stays queued for its hour-long message timeout unless the shutdown purges it.
        var configuration = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1", clientId: KafkaTestSupport.unique("shutdown"))
        configuration.messageTimeout = .seconds(3600)
        let producer = try KafkaProducer(configuration: configuration, logger: Logger(label: "shutdown", minimumLevel: .error, sink: LogSink { _ in }))
        let answer = AsyncCondition<Result<KafkaDeliveryReport, any Error>?>(nil)
        Task {
            let result = await Result(catching: { try await producer.send(topic: "unreachable", key: "k", value: Array("v".utf8)) })
            answer.update { $0 = result }
        }
        try await eventually("the message is queued", within: .seconds(10)) { producer.outstandingMessages == 1 }
        await #expect(throws: KafkaError.self) { try await producer.shutdown(timeout: .milliseconds(200)) }
        #expect(await answer.wait(until: { $0 != nil }, timeout: .seconds(20)), "the waiting send got an answer")
        guard let result = answer.value else { return }
        guard case .failure(let error) = result else {
            Issue.record("the send succeeded without a broker: \(result)")
            return
        }
        #expect(error is KafkaError, "\(error)")
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
