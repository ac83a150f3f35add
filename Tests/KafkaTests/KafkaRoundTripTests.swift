import Foundation
import Kafka
import Testing

@Suite("produce and consume against Tansu", .timeLimit(.minutes(1)))
struct KafkaRoundTripTests {
    @Test func produceThenConsumeKeepsKeysValuesAndHeaders() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let topic = try await KafkaTestSupport.makeTopic(admin, prefix: "roundtrip", partitions: 1)
        let producer = try KafkaTestSupport.producer()

        let first = try await producer.send(topic: topic, key: Array("match-1".utf8), value: Array(#"{"schema":1}"#.utf8),
                                            headers: [KafkaHeader(key: "schema", value: "1"), KafkaHeader(key: "empty", value: nil)])
        let second = try await producer.send(topic: topic, key: nil, value: [0, 1, 2, 255])
        let third = try await producer.send(topic: topic, key: "match-2", value: Data("ünïcode".utf8),
                                            headers: [KafkaHeader(key: "dup", value: "a"), KafkaHeader(key: "dup", value: "b")])
        try await producer.shutdown(timeout: .seconds(5))
        #expect([first.offset, second.offset, third.offset] == [0, 1, 2])
        #expect(first.topic == topic && first.partition == 0)

        let log = CapturedLog()
        let consumer = try KafkaConsumer(configuration: KafkaTestSupport.consumerConfiguration(group: KafkaTestSupport.unique("roundtrip"), topics: [topic]),
                                         logger: log.logger)
        let messages = try await KafkaTestSupport.consume(consumer, count: 3, commit: true)
        try await consumer.close()
        try await consumer.close()
        await #expect(throws: KafkaError.self) { _ = try await consumer.poll() }
        var afterClose = consumer.messages().makeAsyncIterator()
        #expect(try await afterClose.next() == nil)
        #expect(consumer.assignment.isEmpty)

        #expect(messages.map(\.offset) == [0, 1, 2])
        #expect(messages[0].keyString == "match-1")
        #expect(messages[0].value == Array(#"{"schema":1}"#.utf8))
        #expect(messages[0].headers == [KafkaHeader(key: "schema", value: "1"), KafkaHeader(key: "empty", value: nil)])
        #expect(messages[0].header("schema") == "1")
        #expect(messages[1].key == nil)
        #expect(messages[1].value == [0, 1, 2, 255])
        #expect(messages[1].headers.isEmpty)
        #expect(messages[2].keyString == "match-2")
        #expect(String(decoding: messages[2].value, as: UTF8.self) == "ünïcode")
        #expect(messages[2].headers.map(\.key) == ["dup", "dup"])
        let now = Date()
        for message in messages {
            #expect(message.topic == topic && message.partition == 0)
            let timestamp = try #require(message.timestamp)
            #expect(abs(timestamp.timeIntervalSince(now)) < 120)
        }
        #expect(log.all.contains { $0.contains("partitions assigned") && $0.contains("\(topic)[0]") })
        #expect(log.all.contains { $0.contains("partitions revoked") })
    }

    @Test func sendAllReportsEveryDeliveryInOrder() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let topic = try await KafkaTestSupport.makeTopic(admin, prefix: "sendall", partitions: 2)
        let producer = try KafkaTestSupport.producer()
        let messages = (0..<50).map { KafkaOutgoingMessage(topic: topic, key: nil, value: Array("m\($0)".utf8), partition: Int32($0 % 2)) }
        let results = await producer.sendAll(messages)
        try await producer.shutdown(timeout: .seconds(5))
        let reports = try results.map { try $0.get() }
        #expect(reports.count == 50)
        for partition in Int32(0)...1 {
            #expect(reports.filter { $0.partition == partition }.map(\.offset) == Array(0..<25))
        }
        #expect(producer.outstandingMessages == 0)
        await #expect(throws: KafkaError.self) { _ = try await producer.send(topic: topic, key: nil, value: [1]) }
    }
}
