import Foundation

/// Every process of the dev stack with its arguments, environment and readiness probe — the one
/// definition the demo (`sightscreen dev`), the end-to-end test and the fault suite share.
///
/// Start order: mock-apns (its certificate must exist before apns-sender and device-sim trust
/// it), fake-sportmonks, api, detector, la-coordinator, apns-sender, poller; then, once the
/// poller has synced the match into the schedule, device-sim.
public struct DevStackPlan: Sendable, Equatable {
    public let options: DevStackOptions
    public let material: DevMaterial

    public init(options: DevStackOptions, material: DevMaterial? = nil) {
        self.options = options
        self.material = material ?? DevMaterial(directory: options.materialDirectory)
    }

    /// URLs of the running stack.
    public var apiURL: String { "http://127.0.0.1:\(options.ports.api)" }
    public var fakeURL: String { "http://127.0.0.1:\(options.ports.fakeSportmonks)" }
    public var mockAPNsURL: String { "https://127.0.0.1:\(options.ports.mockAPNs)" }
    public var deviceSimulatorURL: String { "http://127.0.0.1:\(options.ports.deviceSimulator)" }
    public var prometheusURL: String { "http://127.0.0.1:\(options.ports.prometheus)" }
    public func serviceURL(_ name: String) -> String? {
        switch name {
        case "api": apiURL
        case "poller": "http://127.0.0.1:\(options.ports.poller)"
        case "detector": "http://127.0.0.1:\(options.ports.detector)"
        case "la-coordinator": "http://127.0.0.1:\(options.ports.coordinator)"
        case "apns-sender": "http://127.0.0.1:\(options.ports.sender)"
        case "fake-sportmonks": fakeURL
        case "device-sim": deviceSimulatorURL
        default: nil
        }
    }

    /// The five services' names, in start order.
    public static let serviceNames = ["api", "detector", "la-coordinator", "apns-sender", "poller"]

    /// mock-apns, fake-sportmonks and the five services, in start order.
    public var servers: [DevProcessSpec] {
        [mockAPNs, fakeSportmonks, api, detector, coordinator, sender, poller]
    }

    /// Environment shared by the services.
    func serviceEnvironment(port: Int) -> [String: String] {
        var environment = options.baseEnvironment
        environment["KAFKA_BROKERS"] = options.kafkaBrokers
        environment["DATABASE_URL"] = options.databaseURL
        environment["HTTP_HOST"] = "127.0.0.1"
        environment["HTTP_PORT"] = String(port)
        environment["LOG_LEVEL"] = options.logLevel
        environment["SHUTDOWN_GRACE_MS"] = String(options.shutdownGraceMs)
        // No load balancer polls /ready in the dev stack: stop accepting at once.
        environment["SHUTDOWN_READY_DELAY_MS"] = "0"
        environment["STACK_DIR"] = options.materialDirectory.deletingLastPathComponent().path
        return environment
    }

    func finish(_ spec: DevProcessSpec) -> DevProcessSpec {
        var spec = spec
        for (name, value) in options.overrides[spec.name] ?? [:] { spec.environment[name] = value }
        return spec
    }

    public var mockAPNs: DevProcessSpec {
        finish(DevProcessSpec(
            name: "mock-apns", executable: "mock-apns",
            arguments: ["--host", "127.0.0.1", "--port", String(options.ports.mockAPNs),
                        "--cert-dir", material.certificateDirectory.path, "--key", material.apnsPublicKey.path,
                        "--key-id", material.apnsKeyID, "--team-id", material.apnsTeamID, "--bundle-id", material.bundleID]
                + (options.broadcastEnabled ? ["--manage-sandbox-port", String(options.ports.mockAPNsManage)] : []),
            environment: options.baseEnvironment, readiness: .logLine("listening 127.0.0.1:")))
    }

    public var fakeSportmonks: DevProcessSpec {
        finish(DevProcessSpec(
            name: "fake-sportmonks", executable: "fake-sportmonks",
            arguments: ["--matches", material.matchesDirectory(fixture: options.fixtureId).path,
                        "--port", String(options.ports.fakeSportmonks), "--speed", String(options.speed),
                        "--break-steps", String(options.breakSteps),
                        "--upcoming-days", "1", "--id-offset", String(options.idOffset),
                        "--api-token", options.feedAPIToken, "--admin-token", options.feedAdminToken],
            environment: options.baseEnvironment, readiness: .logLine("\"serving\"")))
    }

    public var api: DevProcessSpec {
        var environment = serviceEnvironment(port: options.ports.api)
        environment["AUTH_JWKS_PATH"] = material.jwks.path
        environment["FAKE_SPORTMONKS_ADMIN_URL"] = fakeURL
        environment["FAKE_SPORTMONKS_ADMIN_TOKEN"] = options.feedAdminToken
        // /metrics on its own listener, as in production: never on the api's public port.
        environment["METRICS_PORT"] = String(options.ports.apiMetrics)
        return finish(DevProcessSpec(name: "api", executable: "api", environment: environment,
                                     readiness: .http(apiURL + "/ready")))
    }

    public var detector: DevProcessSpec {
        var environment = serviceEnvironment(port: options.ports.detector)
        environment["DETECTOR_GROUP_ID"] = options.consumerGroups.detector
        return finish(DevProcessSpec(name: "detector", executable: "detector", environment: environment,
                              readiness: .http("http://127.0.0.1:\(options.ports.detector)/ready")))
    }

    public var coordinator: DevProcessSpec {
        var environment = serviceEnvironment(port: options.ports.coordinator)
        environment["LA_EVENTS_GROUP_ID"] = options.consumerGroups.coordinatorEvents
        environment["LA_TOKEN_INVALID_GROUP_ID"] = options.consumerGroups.coordinatorTokenInvalid
        environment["LA_RECORD_GROUP_ID"] = options.consumerGroups.coordinatorRecord
        // The demo's fan-outs are a handful of devices, sent in milliseconds: the record stays seconds behind, not a minute.
        environment["LA_RECORD_MAX_DELAY_MS"] = "2000"
        // The overload rule reads apns-sender's commits: the same group the sender below joins.
        environment["LA_SENDER_GROUP"] = options.consumerGroups.sender
        // Live Activity management: the orchestrator at the demo's pace, under a lock of this stack's own.
        environment["ORCHESTRATOR_INTERVAL_MS"] = String(options.orchestratorIntervalMs)
        environment["ORCHESTRATOR_RETRY_BACKOFF_MS"] = String(options.orchestratorIntervalMs)
        environment["LA_MANAGEMENT_LOCK_NAME"] = options.pollerLockName + ".la-management"
        environment["LEADER_RETRY_MS"] = "500"
        if options.broadcastEnabled {
            // Sandbox channels (device-sim's devices are sandbox builds) at mock-apns's management listener, made
            // as soon as the match is in the schedule (the fake schedules it for tomorrow), checked every second.
            addAPNsCredentials(&environment)
            environment["BROADCAST_ENABLED"] = "true"
            environment["BROADCAST_ENVIRONMENTS"] = "sandbox"
            environment["APNS_MANAGE_SANDBOX_HOST"] = "127.0.0.1"
            environment["APNS_MANAGE_SANDBOX_PORT"] = String(options.ports.mockAPNsManage)
            environment["BROADCAST_CHANNEL_LEAD_MS"] = String(3 * 86_400_000)
            environment["BROADCAST_CHANNEL_INTERVAL_MS"] = "1000"
            environment["BROADCAST_CHANNEL_GRACE_MS"] = "60000"
        }
        return finish(DevProcessSpec(name: "la-coordinator", executable: "la-coordinator", environment: environment,
                              readiness: .http("http://127.0.0.1:\(options.ports.coordinator)/ready")))
    }

    /// The dev APNs key and mock-apns's CA (`APNsCredentials`: apns-sender, and la-coordinator's channel manager).
    func addAPNsCredentials(_ environment: inout [String: String]) {
        environment["APNS_TEAM_ID"] = material.apnsTeamID
        environment["APNS_KEY_ID"] = material.apnsKeyID
        environment["APNS_KEY_PATH"] = material.apnsPrivateKey.path
        environment["APNS_BUNDLE_ID"] = material.bundleID
        environment["APNS_CA_FILE"] = material.certificateFile.path
    }

    public var sender: DevProcessSpec {
        var environment = serviceEnvironment(port: options.ports.sender)
        addAPNsCredentials(&environment)
        environment["APNS_PRODUCTION_HOST"] = "127.0.0.1"
        environment["APNS_PRODUCTION_PORT"] = String(options.ports.mockAPNs)
        environment["APNS_SANDBOX_HOST"] = "127.0.0.1"
        environment["APNS_SANDBOX_PORT"] = String(options.ports.mockAPNs)
        environment["APNS_SENDER_GROUP"] = options.consumerGroups.sender
        return finish(DevProcessSpec(name: "apns-sender", executable: "apns-sender", environment: environment,
                                     readiness: .http("http://127.0.0.1:\(options.ports.sender)/ready")))
    }

    public var poller: DevProcessSpec {
        var environment = serviceEnvironment(port: options.ports.poller)
        environment["SPORTMONKS_BASE_URL"] = fakeURL + "/api/v2.0"
        environment["SPORTMONKS_API_TOKEN"] = options.feedAPIToken
        environment["POLL_INTERVAL_MS"] = String(options.pollIntervalMs)
        environment["SCHEDULE_SYNC_INTERVAL_MS"] = "10000"
        environment["POLLER_LOCK_NAME"] = options.pollerLockName
        environment["LEADER_RETRY_MS"] = "500"
        return finish(DevProcessSpec(name: "poller", executable: "poller", environment: environment,
                                     readiness: .http("http://127.0.0.1:\(options.ports.poller)/ready")))
    }

    /// Where the stack's Prometheus keeps its configuration, the time-scaled rule file and its data.
    public var prometheusDirectory: URL { options.logDirectory.appendingPathComponent("prometheus") }

    /// Prometheus (when `options.prometheus` is set), started after the services so that none is
    /// scraped before it listens. Its configuration is written by `DevStack.startPrometheus`.
    public var prometheus: DevProcessSpec? {
        guard let settings = options.prometheus else { return nil }
        return finish(DevProcessSpec(
            name: "prometheus", executable: settings.executable.path,
            arguments: ["--config.file=\(prometheusDirectory.appendingPathComponent("prometheus.yml").path)",
                        "--storage.tsdb.path=\(prometheusDirectory.appendingPathComponent("data").path)",
                        "--web.listen-address=127.0.0.1:\(options.ports.prometheus)", "--log.level=warn"],
            environment: options.baseEnvironment, readiness: .http(prometheusURL + "/-/ready")))
    }

    /// device-sim: `options.devices` devices that follow every replayed match from the start.
    public var deviceSimulator: DevProcessSpec {
        var environment = options.baseEnvironment
        environment["LOG_LEVEL"] = options.logLevel
        return finish(DevProcessSpec(
            name: "device-sim", executable: "device-sim",
            arguments: ["--api", apiURL, "--mock-apns", mockAPNsURL, "--ca-file", material.certificateFile.path,
                        "--dev-keys", material.devKeysDirectory.path, "--devices", String(options.devices),
                        "--follow", options.fixtureIds.map(String.init).joined(separator: ","), "--port", String(options.ports.deviceSimulator),
                        "--poll-ms", "250", "--env", "sandbox", "--channel-share", String(options.channelShare)],
            environment: environment, readiness: .http(deviceSimulatorURL + "/health")))
    }
}
