import Kafka
import Runtime
import Testing

@Suite("librdkafka version and configuration")
struct KafkaLibraryTests {
    @Test func versionCheckPassesWithTheVendoredLibrary() throws {
        let version = KafkaLibrary.version
        #expect(version.number >= 0x0203_0000, "loaded librdkafka \(version.string); run scripts/setup, then source scripts/env (it puts .local/lib first on LD_LIBRARY_PATH)")
        #expect(version.string.split(separator: ".").count >= 3)
        try KafkaLibrary.requireMinimumVersion()
    }

    @Test func debianVersionIsRejectedWithInstructions() {
        #expect {
            try KafkaLibrary.check(KafkaLibraryVersion(string: "2.0.2", number: 0x0200_02ff))
        } throws: { error in
            let text = String(describing: error)
            return text.hasPrefix("librdkafka 2.0.2 is too old (need >= 2.3; Debian's 2.0.2 cannot talk to Tansu)")
                && text.contains("run scripts/setup, then source scripts/env")
        }
    }

    @Test func unknownProducerKeyIsNamedInTheError() {
        var configuration = KafkaProducerConfiguration(bootstrapServers: KafkaTestSupport.brokers, clientId: "bad-config")
        configuration.additional["no.such.property"] = "1"
        #expect {
            _ = try KafkaProducer(configuration: configuration, logger: KafkaTestSupport.logger)
        } throws: { error in
            guard let error = error as? KafkaConfigurationError else { return false }
            return error.key == "no.such.property" && error.value == "1" && error.description.contains("no.such.property")
        }
    }

    @Test func invalidConsumerValueIsNamedInTheError() {
        var configuration = KafkaTestSupport.consumerConfiguration(group: "bad-config", topics: ["t"])
        configuration.additional["auto.offset.reset"] = "sideways"
        #expect {
            _ = try KafkaConsumer(configuration: configuration, logger: KafkaTestSupport.logger)
        } throws: { error in
            (error as? KafkaConfigurationError)?.key == "auto.offset.reset"
        }
    }

    @Test func unreachableBrokerFailsFastWithAKafkaError() async throws {
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: "127.0.0.1:1"),
                                   logger: Logger(label: "quiet", minimumLevel: .error, sink: LogSink { _ in }))
        let start = ContinuousClock.now
        await #expect(throws: KafkaError.self) { _ = try await admin.listTopics(timeout: .seconds(1)) }
        // A hang detector, not a speed check: the library's own 1 s timeout must end the call.
        // (The bound is loose because CPU-heavy suites running in parallel can starve this task.)
        #expect(ContinuousClock.now - start < .seconds(60))
    }
}
