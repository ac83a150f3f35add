@testable import API
import ClientCore
import Contracts
import Foundation
import Kafka
@testable import LACoordinator
import Postgres
import PushComposition
import Runtime
import Testing
import SharedTestSupport

/// Issue 16: the two push-to-start paths — the orchestrator when a match goes live, the api on a
/// follow of a live match — used to name different `ActivityAttributes` types with different
/// attributes, so one of them could never start an activity on a phone. Both now build with
/// `LiveActivityPayload.matchStart`; this feeds both the same device and match.
@Suite struct StartPathsAgreeTests {
    static let state = UnifiedDisplayState(
        matchId: "m-agree", matchDisplayState: .live, title: "India vs Australia", subtitle: "1st T20I", statusText: "India batting",
        compactLeading: .init(teamAbbr: "IND", score: "87/3"), compactTrailing: .init(overs: "10.2", runRate: "8.41"),
        minimal: .init(text: "87/3"),
        expanded: .init(batting: .init(abbr: "IND", name: "India", score: "87/3", overs: "10.2"),
                        bowling: .init(abbr: "AUS", name: "Australia", score: "", overs: ""), batters: [], bowler: nil, lastBalls: [],
                        target: nil, equation: nil, runRate: "8.41", requiredRate: nil),
        lockScreen: .init(headline: "IND 87/3", detail: "10.2 ov", footer: "India batting"), resultLine: nil, updatedAt: 1_800_000_000)

    @Test func theOrchestratorAndTheAPIBuildTheSameStartBodyAndJobId() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_100)
        let card = MatchCard(
            matchId: "m-agree", startsAt: 1_799_990_000, status: "1st Innings", phase: .live, title: "India vs Australia",
            subtitle: "1st T20I", home: .init(name: "India", abbr: "IND", score: "87/3 (10.2)", logoUrl: nil),
            away: .init(name: "Australia", abbr: "AUS", score: "", logoUrl: nil), statusText: "India batting")
        let orchestrator = MatchOrchestrator(
            database: PostgresClient(configuration: PostgresConfiguration(user: "unused", database: "unused"), logger: Logger(label: "t")),
            producer: try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1", clientId: "unused"),
                                        logger: Logger(label: "t", minimumLevel: .error, sink: LogSink { _ in })),
            settings: .init(), clock: ManualWallClock(now), metrics: ActivityManagementMetrics(registry: MetricsRegistry()), logger: Logger(label: "t"))
        let candidate = MatchOrchestrator.Candidate(matchId: "m-agree", userId: "u1", deviceId: "phone", token: String(repeating: "a", count: 64),
                                                    env: .sandbox, card: card, state: Self.state, previous: nil)
        let fromOrchestrator = try orchestrator.job(for: candidate, attempt: 1, now: now)
        let factory = PushJobFactory(shards: PushSharding.defaultShards)
        let fromAPI = try #require(factory.startJobs(
            matchId: "m-agree", state: Self.state, seq: 1,
            targets: [.init(userId: "u1", deviceId: "phone", token: String(repeating: "a", count: 64), env: .sandbox, discriminator: "1")],
            now: now).first)

        #expect(fromOrchestrator.payload == fromAPI.payload, "byte-identical start bodies")
        #expect(fromOrchestrator.jobId == fromAPI.jobId)
        let push = try ActivityPush.decode(apnsPayload: Array(fromAPI.payload.utf8))
        #expect(push.attributesType == MatchActivityAttributes.typeName)
        #expect(push.attributes == ["matchId": "m-agree", "title": "India vs Australia"])
        #expect(push.startRefusal == nil, "a phone that declares MatchActivityAttributes starts it")
    }

    /// Without a detector state both paths fall back to the same state built from the card (one
    /// `FallbackDisplayState`), and both expire their starts after the same time (one `PushPolicy`).
    @Test(arguments: [true, false])
    func withoutADetectorStateBothPathsBuildTheSameStartFromTheCard(hasCard: Bool) throws {
        let now = Date(timeIntervalSince1970: 1_800_000_100)
        let card = MatchCard(
            matchId: "m-agree", startsAt: 1_799_990_000, status: "2nd Innings", phase: .live, title: "India vs Australia",
            subtitle: "1st T20I", home: .init(name: "India", abbr: "IND", score: "187/5 (20)", logoUrl: nil),
            away: .init(name: "Australia", abbr: "AUS", score: "40/1 (4.2)", logoUrl: nil), statusText: "Australia need 148")
        let orchestrator = try Self.orchestrator(now: now)
        let candidate = MatchOrchestrator.Candidate(
            matchId: "m-agree", userId: "u1", deviceId: "phone", token: String(repeating: "a", count: 64), env: .sandbox,
            card: hasCard ? card : FallbackDisplayState.placeholderCard(matchId: "m-agree"), state: nil, previous: nil)
        let fromOrchestrator = try orchestrator.job(for: candidate, attempt: 1, now: now)
        // The api's follow path resolves its state the same way (`FollowBatcher`'s batch run).
        let apiState = FallbackDisplayState.resolve(state: nil, card: hasCard ? card : nil, matchId: "m-agree",
                                                    updatedAt: Int64(now.timeIntervalSince1970))
        let fromAPI = try #require(PushJobFactory(shards: PushSharding.defaultShards).startJobs(
            matchId: "m-agree", state: apiState, seq: 0,
            targets: [.init(userId: "u1", deviceId: "phone", token: String(repeating: "a", count: 64), env: .sandbox, discriminator: "1")],
            now: now).first)
        #expect(fromOrchestrator.payload == fromAPI.payload, "byte-identical start bodies")
        #expect(fromOrchestrator.expiration == fromAPI.expiration && fromOrchestrator.priority == fromAPI.priority)
        let push = try ActivityPush.decode(apnsPayload: Array(fromAPI.payload.utf8))
        #expect(push.startRefusal == nil)
        if hasCard { #expect(fromAPI.payload.contains("IND 187/5"), "the card's scores are shown") }
    }

    static func orchestrator(now: Date) throws -> MatchOrchestrator {
        MatchOrchestrator(
            database: PostgresClient(configuration: PostgresConfiguration(user: "unused", database: "unused"), logger: Logger(label: "t")),
            producer: try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1", clientId: "unused"),
                                        logger: Logger(label: "t", minimumLevel: .error, sink: LogSink { _ in })),
            settings: .init(), clock: ManualWallClock(now), metrics: ActivityManagementMetrics(registry: MetricsRegistry()), logger: Logger(label: "t"))
    }

    @Test func aStartNamingAnotherTypeOrMissingAnAttributeIsRefusedAsAPhoneWould() throws {
        let good = try LiveActivityPayload.matchStart(state: Self.state, timestamp: 1_800_000_000).jsonString()
        #expect(try ActivityPush.decode(apnsPayload: Array(good.utf8)).startRefusal == nil)
        let otherType = try LiveActivityPayload.start(state: Self.state, timestamp: 1_800_000_000, attributesType: "MatchAttributes",
                                                      attributes: ["matchId": "m-agree", "title": "x"], alert: .init(title: "t", body: "b"))
            .jsonString()
        #expect(try ActivityPush.decode(apnsPayload: Array(otherType.utf8)).startRefusal?.contains("MatchAttributes") == true)
        let missingTitle = try LiveActivityPayload.start(state: Self.state, timestamp: 1_800_000_000,
                                                         attributesType: MatchActivityAttributes.typeName,
                                                         attributes: ["matchId": "m-agree"], alert: .init(title: "t", body: "b")).jsonString()
        #expect(try ActivityPush.decode(apnsPayload: Array(missingTitle.utf8)).startRefusal != nil)
    }
}
