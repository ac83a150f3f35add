@testable import DeviceSimulator
import Testing

@Suite struct ConfigurationTests {
    @Test func defaultsMatchTheInterface() throws {
        let configuration = try SimulatorConfiguration.parse([], environment: [:])
        #expect(configuration.deviceCount == 10)
        #expect(configuration.port == 8095)
        #expect(configuration.pollMilliseconds == 250)
        #expect(configuration.environment == .sandbox)
        #expect(configuration.follow.isEmpty)
        #expect(configuration.authIssuer == "https://sightscreen.local/dev-user-pool")
        #expect(configuration.authClientId == "sightscreen-ios-dev")
    }

    @Test func flagsWinOverTheEnvironment() throws {
        let configuration = try SimulatorConfiguration.parse(
            ["--api", "http://127.0.0.1:9000/", "--mock-apns=https://127.0.0.1:2999", "--ca-file", "/tmp/cert.pem",
             "--dev-keys", "/tmp/keys", "--devices", "7", "--follow", "m1, m2", "--port", "0", "--poll-ms", "100",
             "--env", "production", "--request-locally"],
            environment: ["DEVICE_SIM_DEVICES": "3", "DEVICE_SIM_API": "http://127.0.0.1:1", "AUTH_ISSUER": "iss", "AUTH_CLIENT_ID": "cid"])
        #expect(configuration.apiURL == "http://127.0.0.1:9000")
        #expect(configuration.mockAPNsURL == "https://127.0.0.1:2999")
        #expect(configuration.caFile == "/tmp/cert.pem")
        #expect(configuration.devKeysDirectory == "/tmp/keys")
        #expect(configuration.deviceCount == 7)
        #expect(configuration.follow == ["m1", "m2"])
        #expect(configuration.port == 0)
        #expect(configuration.pollMilliseconds == 100)
        #expect(configuration.environment == .production)
        #expect(configuration.requestLocally)
        #expect(configuration.authIssuer == "iss" && configuration.authClientId == "cid")
    }

    @Test func theEnvironmentFillsMissingFlags() throws {
        let configuration = try SimulatorConfiguration.parse(
            ["--devices", "4"],
            environment: ["DEVICE_SIM_FOLLOW": "x9", "DEVICE_SIM_POLL_MS": "50", "DEVICE_SIM_MOCK_APNS": "https://h:1", "STACK_DIR": "/s"])
        #expect(configuration.deviceCount == 4)
        #expect(configuration.follow == ["x9"])
        #expect(configuration.pollMilliseconds == 50)
        #expect(configuration.mockAPNsURL == "https://h:1")
        #expect(configuration.devKeysDirectory == "/s/dev-keys")
    }

    @Test func badValuesNameTheFlag() {
        #expect(throws: SimulatorConfigurationError(flag: "devices", value: "0", reason: "must be an integer in 1...100000")) {
            try SimulatorConfiguration.parse(["--devices", "0"], environment: [:])
        }
        #expect(throws: SimulatorConfigurationError.self) { try SimulatorConfiguration.parse(["--env", "staging"], environment: [:]) }
        #expect(throws: SimulatorConfigurationError.self) { try SimulatorConfiguration.parse(["--mock-apns", "http://x:1"], environment: [:]) }
        #expect(throws: SimulatorConfigurationError.self) { try SimulatorConfiguration.parse(["--nope"], environment: [:]) }
        #expect(throws: SimulatorConfigurationError.self) { try SimulatorConfiguration.parse(["--port"], environment: [:]) }
    }

    @Test func everyUserOwnsTwoDevices() throws {
        let configuration = try SimulatorConfiguration.parse([], environment: [:])
        #expect((0..<6).map(configuration.userId) == ["sim-user-0", "sim-user-0", "sim-user-1", "sim-user-1", "sim-user-2", "sim-user-2"])
        #expect(configuration.deviceId(3) == "sim-device-3")
    }
}
