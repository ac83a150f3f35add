import Testing
@testable import Runtime

@Suite struct EnvironmentReaderTests {
    @Test func defaultsApplyWhenUnset() throws {
        let env = EnvironmentReader([:])
        #expect(try env.int("POLL_INTERVAL_MS", default: 5000) == 5000)
        #expect(try env.port("HTTP_PORT", default: 8080) == 8080)
        #expect(try env.bool("MAINTENANCE", default: false) == false)
        #expect(env.string("KAFKA_BROKERS", default: "127.0.0.1:19092") == "127.0.0.1:19092")
    }

    @Test func badIntegerNamesTheVariable() throws {
        let env = EnvironmentReader(["POLL_INTERVAL_MS": "soon"])
        #expect(throws: ConfigurationError.invalid(
            variable: "POLL_INTERVAL_MS", value: "soon", expected: "an integer in 1...60000")) {
            try env.int("POLL_INTERVAL_MS", default: 5000, in: 1...60000)
        }
        do {
            _ = try env.int("POLL_INTERVAL_MS", default: 5000, in: 1...60000)
        } catch {
            #expect(error.description.contains("POLL_INTERVAL_MS"))
            #expect(error.description.contains("soon"))
        }
    }

    @Test func outOfRangePortIsRejected() throws {
        #expect(throws: ConfigurationError.self) { try EnvironmentReader(["HTTP_PORT": "70000"]).port("HTTP_PORT", default: 1) }
        #expect(throws: ConfigurationError.self) { try EnvironmentReader(["HTTP_PORT": "0"]).port("HTTP_PORT", default: 1) }
        #expect(try EnvironmentReader(["HTTP_PORT": "0"]).port("HTTP_PORT", default: 1, allowZero: true) == 0)
    }

    @Test func boolsAndChoicesAndLevels() throws {
        let env = EnvironmentReader(["A": "yes", "B": "off", "C": "maybe", "ENV": "prod", "LOG_LEVEL": "WARN"])
        #expect(try env.bool("A", default: false))
        #expect(try !env.bool("B", default: true))
        #expect(throws: ConfigurationError.invalid(variable: "C", value: "maybe", expected: "true or false")) {
            try env.bool("C", default: false)
        }
        #expect(throws: ConfigurationError.self) { try env.choice("ENV", default: "sandbox", from: ["sandbox", "production"]) }
        #expect(try env.logLevel("LOG_LEVEL", default: .info) == .warning)
    }

    @Test func requiredVariableMissing() throws {
        #expect(throws: ConfigurationError.missing(variable: "APNS_KEY_PATH")) {
            try EnvironmentReader(["APNS_KEY_PATH": ""]).requiredString("APNS_KEY_PATH")
        }
    }

    @Test func millisecondsBecomeDurations() throws {
        #expect(try EnvironmentReader(["T": "250"]).milliseconds("T", default: .seconds(1)) == .milliseconds(250))
        #expect(try EnvironmentReader([:]).milliseconds("T", default: .seconds(1)) == .seconds(1))
    }
}
