import CricsheetReplay
import Foundation
import Postgres
import Runtime
import ServiceKit

/// A running dev stack: prepares the material, starts the processes of a `DevStackPlan` under a
/// `DevSupervisor`, and drives the replay (wait for the schedule, start devices, start the match).
/// The demo, the end-to-end test and the fault suite all go through this type.
public final class DevStack: Sendable {
    public let plan: DevStackPlan
    public let supervisor: DevSupervisor
    public let logger: Logger
    private let database: PostgresClient

    public var options: DevStackOptions { plan.options }
    /// The feed admin API with its token.
    public var feedAdmin: DevHTTP { DevHTTP(timeout: 5, headers: ["X-Admin-Token": options.feedAdminToken]) }

    public init(plan: DevStackPlan, logger: Logger = Logger(label: "dev-stack")) throws(DevStackError) {
        self.plan = plan
        self.logger = logger
        supervisor = DevSupervisor(binDirectory: plan.options.binDirectory, logDirectory: plan.options.logDirectory, logger: logger)
        do {
            let configuration = try InfrastructureOptions(databaseURL: plan.options.databaseURL)
                .postgres(applicationName: "sightscreen-dev", poolSize: 2)
            database = PostgresClient(configuration: configuration, logger: logger.child("postgres"))
        } catch {
            throw .invalidOption("DATABASE_URL \(plan.options.databaseURL): \(error)")
        }
    }

    /// The database the stack uses (for waits and test assertions).
    public var postgres: PostgresClient { database }

    /// Creates the dev material (APNs key, JWT keys, matches folder).
    public func prepare() async throws(DevStackError) {
        try await plan.material.prepare(binDirectory: options.binDirectory, environment: options.baseEnvironment,
                                        matchFiles: options.matchFiles, fixture: options.fixtureId)
    }

    /// Starts mock-apns, fake-sportmonks and the five services, each once the previous is ready; then
    /// Prometheus when the options ask for one.
    public func startServers() async throws(DevStackError) {
        await options.consumerGroups.fastForward(cluster: options.kafkaCluster, logger: logger)
        for spec in plan.servers { try await supervisor.start(spec) }
        try await startPrometheus()
    }

    /// Writes Prometheus' configuration (the stack's targets; the rule file, time-scaled as the options
    /// say) and starts it with fresh storage. Does nothing without `options.prometheus`.
    public func startPrometheus() async throws(DevStackError) {
        guard let settings = options.prometheus, let spec = plan.prometheus else { return }
        let directory = plan.prometheusDirectory
        let rules = directory.appendingPathComponent("alerts.yml")
        do {
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let text = try String(contentsOf: settings.rulesFile, encoding: .utf8)
            try Data(RuleTimeScale(factor: settings.timeScale).apply(to: text).utf8).write(to: rules)
            try Data(settings.configuration(ports: options.ports, rulesPath: rules.path).utf8)
                .write(to: directory.appendingPathComponent("prometheus.yml"))
        } catch {
            throw .invalidOption("cannot write Prometheus' configuration in \(directory.path): \(error)")
        }
        try await supervisor.start(spec)
    }

    /// The stack's Prometheus (meaningful when `options.prometheus` is set).
    public var prometheus: PrometheusClient { PrometheusClient(baseURL: plan.prometheusURL) }

    /// Waits until the poller's schedule sync has put every replayed match into `matches`.
    public func waitForScheduledMatch(timeout: Duration = .seconds(60)) async throws(DevStackError) {
        for fixture in options.fixtureIds {
            try await waitFor("match \(fixture) in the schedule", timeout: timeout) {
                try await self.count("SELECT count(*) FROM matches WHERE match_id = $1", fixture: fixture) >= 1
            }
        }
    }

    /// With broadcast channels on, waits until the poller's channel manager has opened the match's sandbox channel
    /// (so the devices' starts use it); returns at once when they are off.
    public func waitForBroadcastChannel(timeout: Duration = .seconds(60)) async throws(DevStackError) {
        guard options.broadcastEnabled else { return }
        for fixture in options.fixtureIds {
            try await waitFor("an active sandbox broadcast channel for match \(fixture)", timeout: timeout) {
                try await self.count("SELECT count(*) FROM broadcast_channels WHERE match_id = $1 AND apns_env = 'sandbox' AND state = 'active'",
                                     fixture: fixture) >= 1
            }
        }
    }

    /// Starts device-sim (its devices follow every replayed match) and waits until `followers` users follow each.
    public func startDevices(followers: Int? = nil, timeout: Duration = .seconds(60)) async throws(DevStackError) {
        try await supervisor.start(plan.deviceSimulator)
        let users = followers ?? (options.devices + 1) / 2
        for fixture in options.fixtureIds {
            try await waitFor("\(users) users following match \(fixture)", timeout: timeout) {
                try await self.count("SELECT count(*) FROM match_follows WHERE match_id = $1", fixture: fixture) >= users
            }
        }
    }

    /// Starts the replay of every match now (`POST /admin/matches/:id/start` on the fake), the primary first.
    public func startMatch() async throws(DevStackError) {
        for fixture in options.fixtureIds {
            try await controlReplay("start", fixture: fixture)
            logger.info("match started", ["match_id": String(fixture), "speed": String(options.speed)])
        }
    }

    /// `POST /admin/matches/:id/<action>` on the fake: start, pause, resume, reset, or seek with a JSON body
    /// (`{"delivery": N, "phase": "stumps"}`); of the primary match unless `fixture` names another.
    public func controlReplay(_ action: String, json: String? = nil, fixture: Int? = nil) async throws(DevStackError) {
        let url = "\(plan.fakeURL)/admin/matches/\(fixture ?? options.fixtureId)/\(action)"
        let reply = try await feedAdmin.post(url, json: json)
        guard reply.status == 200 else { throw .request(url: url, reason: "HTTP \(reply.status): \(reply.text.prefix(200))") }
    }

    /// The fake's view of the replay of the primary match, or of `fixture`.
    public func replayStatus(fixture: Int? = nil) async throws(DevStackError) -> ReplayStatus {
        try await DevHTTP(timeout: 2, headers: ["X-Admin-Token": options.feedAdminToken])
            .getJSON("\(plan.fakeURL)/admin/matches/\(fixture ?? options.fixtureId)")
    }

    /// The feed's timeline: when each fixture's replay positions were first served (`GET /admin/timeline`), for the
    /// match-day checker's freshness.
    public func servedPositions() async throws(DevStackError) -> [ServedPosition] {
        try await DevHTTP(timeout: 10, headers: ["X-Admin-Token": options.feedAdminToken]).getJSON("\(plan.fakeURL)/admin/timeline")
    }

    /// Runs the whole start sequence: prepare, servers, schedule, the broadcast channel (when on), devices (when device-sim is
    /// built and `devices > 0`), then the match a moment after the followers registered.
    public func launch(startDelay: Duration = .seconds(3)) async throws(DevStackError) {
        try await prepare()
        try await startServers()
        try await waitForScheduledMatch()
        try await waitForBroadcastChannel()
        if options.devices > 0 {
            guard FileManager.default.isExecutableFile(atPath: options.binDirectory.appendingPathComponent("device-sim").path) else {
                throw .notBuilt(executable: "device-sim", binDirectory: options.binDirectory.path)
            }
            try await startDevices()
        }
        try? await Task.sleep(for: startDelay)
        try await startMatch()
    }

    /// Stops everything this stack started (reverse order) and closes its database pool.
    public func shutdown(grace: Duration = .seconds(10)) async {
        await supervisor.stopAll(grace: grace)
        await database.shutdown()
    }

    /// `SELECT count(*) …` with the primary match's fixture id, or `fixture`, as `$1`.
    public func count(_ sql: String, fixture: Int? = nil) async throws -> Int {
        let rows = try await database.query(sql, [String(fixture ?? options.fixtureId)])
        return Int(try rows.first?.decode(0, as: Int64.self) ?? 0)
    }

    /// Polls `condition` every 250 ms until it holds or `timeout` passes.
    public func waitFor(_ what: String, timeout: Duration, _ condition: @Sendable () async throws -> Bool) async throws(DevStackError) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? await condition()) == true { return }
            if Task.isCancelled { throw .cancelled(waitingFor: what) }
            let dead = await supervisor.exited()
            if !dead.isEmpty {
                let tails = await dead.asyncMap { name in "\(name): \((try? await self.supervisor.logTail(name, lines: 10)) ?? "")" }
                throw .exitedEarly(name: dead.joined(separator: ","), status: -1, logTail: tails.joined(separator: "\n"))
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        throw .timedOut(waitingFor: what)
    }
}

/// `GET /admin/matches/:id` of fake-sportmonks.
public struct ReplayStatus: Decodable, Sendable, Equatable {
    public var id: Int
    public var title: String
    public var mode: String
    public var step: Int
    public var lastStep: Int
    public var deliveries: Int
    public var totalDeliveries: Int
    public var phase: String
    public var live: Bool

    /// True once the replay has reached its final position.
    public var finished: Bool { step >= lastStep }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var result: [T] = []
        for element in self { result.append(await transform(element)) }
        return result
    }
}
