import APNs
import APNsMock
import BroadcastChannels
import Contracts
import Crypto
import DevCredentials
import Foundation
import LiveActivities
import Postgres
import Runtime
import SharedTestSupport
import Testing
@testable import LACoordinator

/// The broadcast channel manager against PostgreSQL and the mock's channel management API over TLS HTTP/2.
@Suite(.timeLimit(.minutes(3))) struct ChannelManagerTests {
    static let certificate: SelfSignedCertificate = try! SelfSignedCertificate.loadOrGenerate(
        in: NSTemporaryDirectory() + "channel-manager-tests-\(getpid())")
    static let key: APNsSigningKey = try! APNsSigningKey(pem: APNsSigningKey.generatePrivateKeyPEM())
    static let bundleID = "com.sightscreen.app"

    /// Everything one test needs; `stop()` when done.
    struct Rig {
        let database: PostgresClient
        let schema: String
        let mock: MockAPNsServer
        let client: APNsChannelClient
        let clock: ManualWallClock
        let metrics: MetricsRegistry
        let store: BroadcastChannelStore

        func manager(_ settings: ChannelManager.Settings) -> ChannelManager {
            ChannelManager(store: store, activities: LiveActivityStore(database: database), client: client, settings: settings, clock: clock,
                           metrics: metrics, logger: ManagementTestSupport.logger)
        }

        func match(_ id: String, live: Bool, startsIn seconds: Double, phase: String = "live") async throws {
            try await database.execute(
                "INSERT INTO matches (match_id, status, is_live, starts_at, card) VALUES ($1, 'S', $2, $3, $4::jsonb)",
                [id, live, clock.now().addingTimeInterval(seconds), #"{"phase":"\#(phase)"}"#])
        }

        func end(_ id: String) async throws {
            try await database.execute(
                #"UPDATE matches SET is_live = false, card = jsonb_set(card, '{phase}', '"ended"') WHERE match_id = $1"#, [id])
        }

        func listed(_ environment: APNsServerEnvironment) -> Set<String> {
            Set(mock.channels().filter { $0.environment == environment.rawValue }.map(\.channelId))
        }

        func stop() async {
            client.shutdown()
            mock.stop()
            await ManagementTestSupport.dropSchema(schema, database)
        }
    }

    static func rig(channelLimit: Int = 10_000) async throws -> Rig {
        let (database, schema) = try await ManagementTestSupport.database()
        let clock = ManualWallClock(Date())
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(
            certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile, teamID: "TEAM123456",
            keys: ["KEY1234567": try APNsSigningKey(pem: key.publicKeyPEM)], bundleID: bundleID, clock: clock,
            managementPorts: [.production: 0, .sandbox: 0], channelLimit: channelLimit))
        let tokens = try APNsTokenProvider(teamID: "TEAM123456", keyID: "KEY1234567", key: key, clock: clock)
        let client = try APNsChannelClient(
            bundleID: bundleID, tokens: tokens, production: .local(port: mock.managementPort(for: .production)!),
            sandbox: .local(port: mock.managementPort(for: .sandbox)!), caFile: certificate.certificateFile)
        return Rig(database: database, schema: schema, mock: mock, client: client, clock: clock, metrics: MetricsRegistry(),
                   store: BroadcastChannelStore(database: database))
    }

    static func settings(_ environments: [APNsEnvironment] = [.production, .sandbox]) -> ChannelManager.Settings {
        var settings = ChannelManager.Settings()
        settings.enabled = true
        settings.environments = environments
        return settings
    }

    @Test("live matches and those starting within the lead time get a channel per environment; the end plus grace deletes it")
    func createdAheadAndDeletedAfter() async throws {
        let rig = try await Self.rig()
        let manager = rig.manager(Self.settings())
        try await rig.match("live", live: true, startsIn: -1800)
        try await rig.match("soon", live: false, startsIn: 3600, phase: "upcoming")
        try await rig.match("later", live: false, startsIn: 3 * 3600, phase: "upcoming")
        try await rig.match("over", live: false, startsIn: -7200, phase: "ended")
        #expect(try await manager.runOnce() == .init(created: 4))
        for match in ["live", "soon"] {
            let rows = try await rig.store.channels(matchId: match)
            #expect(rows.map(\.environment) == [.production, .sandbox])
            #expect(rows.allSatisfy { $0.state == .active && $0.generation == 1 && $0.storagePolicy == 0 && $0.channelId != nil })
            for row in rows {
                #expect(rig.listed(APNsServerEnvironment(row.environment)).contains(row.channelId!), "the mock has it in \(row.environment)")
                #expect(try await rig.store.activeChannel(matchId: match, environment: row.environment) == row.channelId)
            }
        }
        #expect(try await rig.store.channels(matchId: "later").isEmpty)
        #expect(try await rig.store.channels(matchId: "over").isEmpty)
        #expect(try await manager.runOnce() == .init(), "nothing twice")
        // The match ends: its channels go once the grace period is over, the other match's stay.
        try await rig.end("live")
        rig.clock.advance(by: 60)
        #expect(try await manager.runOnce() == .init())
        #expect(try await rig.store.channels(matchId: "live").allSatisfy { $0.state == .active && $0.matchEndedAt != nil })
        rig.clock.advance(by: 2 * 3600)
        // The same pass: "live"'s two channels deleted, and "later" is now within the lead time.
        #expect(try await manager.runOnce() == .init(created: 2, deleted: 2))
        #expect(try await rig.store.channels(matchId: "live").allSatisfy { $0.state == .deleted })
        let open = Set(try await rig.store.channels(matchId: "soon").compactMap(\.channelId))
            .union(try await rig.store.channels(matchId: "later").compactMap(\.channelId))
        #expect(rig.listed(.production).union(rig.listed(.sandbox)) == open)
        #expect(rig.metrics.gauge("broadcast_channels", help: "", labels: ["env": "sandbox", "state": "deleted"]).current == 1)
        #expect(rig.metrics.gauge("broadcast_channels", help: "", labels: ["env": "production", "state": "active"]).current == 2)
        await rig.stop()
    }

    @Test("a refused create leaves the row failed, is counted and tried again later; deletes free room under the limit")
    func refusedCreatesFallBackAndRetry() async throws {
        let rig = try await Self.rig(channelLimit: 1)
        let manager = rig.manager(Self.settings([.production]))
        try await rig.match("m1", live: true, startsIn: -60)
        try await rig.match("m2", live: true, startsIn: -30)
        #expect(try await manager.runOnce() == .init(created: 1, failed: 1))
        let failed = try #require(try await rig.store.channels(matchId: "m2").first)
        #expect(failed.state == .failed && failed.failureReason == "CannotCreateChannelConfig" && failed.channelId == nil)
        #expect(try await rig.store.activeChannel(matchId: "m2", environment: .production) == nil, "its devices stay on tokens")
        #expect(rig.metrics.counter("broadcast_channel_create_failures_total", help: "",
                                    labels: ["env": "production", "reason": "CannotCreateChannelConfig"]).count == 1)
        rig.clock.advance(by: 60)
        #expect(try await manager.runOnce() == .init(), "not again before BROADCAST_CREATE_RETRY_MS")
        try await rig.end("m1")
        rig.clock.advance(by: 60)
        _ = try await manager.runOnce()
        var settings = Self.settings([.production])
        settings.grace = .seconds(30)
        rig.clock.advance(by: 11 * 60)
        #expect(try await rig.manager(settings).runOnce() == .init(created: 1, deleted: 1), "m1's delete made room for m2")
        let retried = try #require(try await rig.store.channels(matchId: "m2").first)
        #expect(retried.state == .active && retried.generation == 2)
        // The capability switched off: FeatureNotEnabled.
        rig.mock.setFaults(MockAPNsFaults(broadcastDisabled: true))
        try await rig.match("m3", live: true, startsIn: 0)
        #expect(try await manager.runOnce().failed == 1)
        #expect(try await rig.store.channels(matchId: "m3").first?.failureReason == "FeatureNotEnabled")
        // A FAILED row (no channel id) of a match that ended is closed without a call to APNs, and the pass goes on.
        rig.mock.setFaults(MockAPNsFaults())
        try await rig.end("m3")
        rig.clock.advance(by: 60)
        _ = try await rig.manager(settings).runOnce()
        rig.clock.advance(by: 31)
        #expect(try await rig.manager(settings).runOnce().deleted == 1)
        #expect(try await rig.store.channels(matchId: "m3").first?.state == .deleted)
        await rig.stop()
    }

    @Test("an unanswered create is found again; strays are deleted; a channel APNs lost becomes invalid and is created again")
    func foundAgainOrphansAndLostChannels() async throws {
        let rig = try await Self.rig()
        let manager = rig.manager(Self.settings([.sandbox]))
        try await rig.match("m", live: true, startsIn: -60)
        // A create that reached APNs but whose answer was lost: the row is CREATING, the channel exists.
        let generation = try #require(try await rig.store.beginCreate(matchId: "m", environment: .sandbox, storagePolicy: 0, now: rig.clock.now()))
        let made = try await rig.client.createChannel(environment: .sandbox, storagePolicy: .noMessageStored,
                                                      requestID: UUID().uuidString.lowercased()).get()
        #expect(try await manager.runOnce() == .init(), "not looked for before BROADCAST_CREATE_TIMEOUT_MS")
        rig.clock.advance(by: 31)
        #expect(try await manager.runOnce() == .init(foundAgain: 1))
        let adopted = try #require(try await rig.store.channels(matchId: "m").first)
        #expect(adopted.state == .active && adopted.channelId == made.rawValue && adopted.generation == generation)
        // A channel the table does not know (another tool's, or a lost create's twin): an orphan.
        let stray = try await rig.client.createChannel(environment: .sandbox, storagePolicy: .noMessageStored,
                                                       requestID: UUID().uuidString.lowercased()).get()
        #expect(try await manager.reconcile() == .init(orphansDeleted: 1))
        #expect(rig.listed(.sandbox) == [made.rawValue])
        _ = stray
        // Deleted behind the system's back: the reconciliation sees it gone, the next pass makes a new one.
        #expect(rig.mock.deleteChannel(made.rawValue))
        try await rig.database.execute(
            "INSERT INTO live_activities (match_id, user_id, device_id, status, delivery, channel_id) VALUES ('m', 'u', 'd', 'active', 'channel', $1)",
            [made.rawValue])
        #expect(try await manager.reconcile() == .init(invalidated: 1))
        let row = try #require(try await rig.database.query("SELECT status, end_reason FROM live_activities WHERE match_id = 'm'").first)
        #expect(try row.decode(0, as: String.self) == "ended" && row.decode(1, as: String.self) == "token_invalid",
                "its activities end, and the orchestrator starts them again on the new channel")
        #expect(try await rig.store.channels(matchId: "m").first?.state == .invalid)
        #expect(try await manager.runOnce().created == 1)
        let recreated = try #require(try await rig.store.channels(matchId: "m").first)
        #expect(recreated.state == .active && recreated.generation == generation + 1 && recreated.channelId != made.rawValue)
        // la-coordinator's report of ChannelNotRegistered does the same; a stale report changes nothing.
        #expect(try await rig.store.markInvalid(channelId: made.rawValue, reason: "ChannelNotRegistered", now: rig.clock.now()) == 0)
        #expect(try await rig.store.markInvalid(channelId: recreated.channelId!, reason: "ChannelNotRegistered", now: rig.clock.now()) == 1)
        #expect(try await manager.runOnce().created == 1)
        #expect(try await rig.store.channels(matchId: "m").first?.generation == generation + 2)
        await rig.stop()
    }
}
