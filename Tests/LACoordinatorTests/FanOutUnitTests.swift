import Contracts
import PushComposition
import FanOut
import Foundation
import Testing

@Suite("fan-out planning (pure)")
struct FanOutUnitTests {
    static func target(_ index: Int) -> PushTarget {
        PushTarget(token: String(format: "%064x", index) + "ab", env: .production, userId: "u\(index / 3)", deviceId: "d\(index % 3)")
    }

    @Test("Shards are stable and in range")
    func sharding() {
        for index in 0..<1000 {
            let token = Self.target(index).token
            let shard = PushSharding.shard(token: token, shards: 64)
            #expect((0..<64).contains(shard) && shard == PushSharding.shard(token: token, shards: 64))
        }
        #expect(PushSharding.shard(token: "abc", shards: 0) == 0)
    }

    @Test("the planner emits every target once, ≤ max per chunk, one shard per chunk, numbered per shard")
    func planner() {
        var planner = FanOutPlanner(shards: 8, maximumTargets: 100)
        var chunks: [PlannedChunk] = []
        for index in 0..<5_000 { if let chunk = planner.add(Self.target(index)) { chunks.append(chunk) } }
        chunks += planner.finish()
        #expect(planner.targetCount == 5_000)
        let tokens = chunks.flatMap { $0.targets.map(\.token) }
        #expect(tokens.count == 5_000 && Set(tokens).count == 5_000)
        for chunk in chunks {
            #expect(chunk.targets.count <= 100 && !chunk.targets.isEmpty)
            #expect(chunk.targets.allSatisfy { PushSharding.shard(token: $0.token, shards: 8) == chunk.shard })
        }
        for shard in 0..<8 {
            #expect(chunks.filter { $0.shard == shard }.map(\.chunk) == Array(0..<chunks.filter { $0.shard == shard }.count))
        }
        #expect(planner.finish().isEmpty)
        #expect(FanOutPlanner(shards: 1, maximumTargets: 5_000).maximumTargets == PushJob.maximumTargets)
    }

    static func event(_ match: String, _ seq: Int64, key: Int? = nil, phase: MatchPhase = .live) -> MatchBusEvent {
        var event = TestSupport.event(matchId: match, seq: seq, phase: phase)
        event.keyEvent = key.map { KeyEvent(kind: $0 == 10 ? .wicket : .four, priority: $0, alert: $0 == 10 ? Alert(title: "W", body: "b") : nil) }
        return event
    }

    @Test("latest-wins keeps the newest per match, every key and end event, and drops repeats")
    func latestWins() {
        let events = [
            Self.event("m1", 1), Self.event("m2", 1), Self.event("m1", 2, key: 10), Self.event("m1", 3),
            Self.event("m1", 4, key: 5), Self.event("m2", 2), Self.event("m2", 2), Self.event("m3", 7, phase: .ended),
            Self.event("m3", 8),
        ]
        #expect(LatestWins.keep(events) == [false, false, true, false, true, true, false, true, true])
        #expect(LatestWins.keep([Self.event("m1", 5)]) == [true])
        #expect(LatestWins.keep([]) == [])
    }

    @Test("a plain update repeating the last push (same state, same time) is a repeat; key, end, newer content and older seqs are not")
    func repeatedUpdates() {
        let filter = RepeatedUpdateFilter(capacity: 2)
        var key = Self.event("m1", 1, key: 10)
        key.emittedAt = 5_000
        let state = key.displayState
        var four = Self.event("m1", 2, key: 5)
        four.emittedAt = 5_000
        four.displayState = state
        #expect(!filter.isRepeat(four), "nothing pushed for m1 yet")
        filter.fannedOut(key)
        #expect(filter.isRepeat(four))
        var plain = four
        plain.seq = 3
        plain.keyEvent = nil
        #expect(filter.isRepeat(plain))
        var later = plain
        later.emittedAt = 6_000
        #expect(!filter.isRepeat(later), "a later time is a newer timestamp for ActivityKit")
        var changed = plain
        changed.displayState.statusText = "India need 39 runs"
        #expect(!filter.isRepeat(changed))
        var alert = four
        alert.keyEvent = KeyEvent(kind: .fifty, priority: 10, alert: Alert(title: "Fifty", body: "Kohli 50"))
        #expect(!filter.isRepeat(alert), "an alert is never skipped")
        var ending = plain
        ending.phase = .ended
        #expect(!filter.isRepeat(ending), "an end is never skipped")
        var replay = key
        replay.keyEvent = nil
        #expect(!filter.isRepeat(replay), "the same seq again is a redelivery, not a repeat")
        filter.fannedOut(ending)
        #expect(!filter.isRepeat(four) && filter.count == 0, "an ended match is forgotten")
        filter.fannedOut(key)
        filter.fannedOut(Self.event("m2", 1))
        filter.fannedOut(Self.event("m3", 1))
        #expect(filter.count == 1, "past the capacity the memory starts over")
    }

    @Test("plan: kind, priority, expiration, alert only for priority 10, dismissal-date for end, deterministic bytes")
    func plan() throws {
        let policy = PushPolicy(updateExpiration: 60, keyEventExpiration: 600, endExpiration: 3600, staleAfter: 1800, dismissAfter: 900)
        let plain = try EventPushPlan(event: Self.event("m", 3, key: 5), policy: policy)
        #expect(plain.kind == .liveActivityUpdate && plain.priority == 5 && plain.expiresAfter == 60 && plain.relevanceScore == 5)
        let key = try EventPushPlan(event: Self.event("m", 4, key: 10), policy: policy)
        #expect(key.kind == .liveActivityUpdate && key.priority == 10 && key.expiresAfter == 600 && key.relevanceScore == 10)
        let end = try EventPushPlan(event: Self.event("m", 5, phase: .ended), policy: policy)
        #expect(end.kind == .liveActivityEnd && end.priority == 10 && end.expiresAfter == 3600)

        let aps = { (plan: EventPushPlan) throws -> [String: Any] in
            let json = try JSONSerialization.jsonObject(with: Data(plan.payload.utf8)) as! [String: Any]
            return json["aps"] as! [String: Any]
        }
        let emitted = Self.event("m", 3).emittedAt / 1000
        #expect(try aps(plain)["timestamp"] as? Int64 == emitted && aps(plain)["alert"] == nil)
        #expect(try aps(plain)["stale-date"] as? Int64 == emitted + 1800 && aps(plain)["event"] as? String == "update")
        #expect(try (aps(key)["alert"] as? [String: Any])?["title"] as? String == "W")
        let endAps = try aps(end)
        #expect(endAps["event"] as? String == "end" && endAps["dismissal-date"] as? Int64 == Self.event("m", 5).emittedAt / 1000 + 900)
        #expect(endAps["stale-date"] == nil)

        #expect(try EventPushPlan(event: Self.event("m", 4, key: 10), policy: policy) == key)
        #expect(key.jobId(shard: 7, chunk: 2) == "m:4:7:2" && key.key(shard: 7) == "m:7")
        let job = key.job(for: PlannedChunk(shard: 7, chunk: 2, targets: [Self.target(1)]), nowMilliseconds: 1_800_000_000_500)
        #expect(job.jobId == "m:4:7:2" && job.expiration == 1_800_000_600 && job.createdAt == 1_800_000_000_500 && job.stateSeq == 4)
    }

    @Test("close of play: a silent stumps event is an end push (priority 10, no alert) dismissed after the evening, never coalesced or skipped; a break's update stays fresh beyond it")
    func closeOfPlayAndBreaks() throws {
        let policy = PushPolicy(updateExpiration: 60, keyEventExpiration: 600, endExpiration: 3600, staleAfter: 1800,
                                breakStaleAfter: 7200, dismissAfter: 900, closeOfPlayDismissAfter: 14_400)
        var stumps = Self.event("m", 9, phase: .interrupted)
        stumps.keyEvent = KeyEvent(kind: .stumps, priority: 5, alert: nil)
        #expect(stumps.endsDay && stumps.endsActivities && !stumps.endsMatch)
        let plan = try EventPushPlan(event: stumps, policy: policy)
        #expect(plan.kind == .liveActivityEnd && plan.priority == 10 && plan.expiresAfter == 3600)
        let aps = try #require(try JSONSerialization.jsonObject(with: Data(plan.payload.utf8)) as? [String: Any])["aps"] as! [String: Any]
        let emitted = stumps.emittedAt / 1000
        #expect(aps["event"] as? String == "end" && aps["dismissal-date"] as? Int64 == emitted + 14_400)
        #expect(aps["alert"] == nil && aps["stale-date"] == nil)

        #expect(LatestWins.keep([stumps, Self.event("m", 10)]) == [true, true], "a day's end is never coalesced away")
        let filter = RepeatedUpdateFilter()
        var before = stumps
        before.seq = 8
        before.keyEvent = nil
        filter.fannedOut(before)
        #expect(!filter.isRepeat(stumps), "a day's end with the same state and time is not a repeat")

        var lunch = Self.event("m", 5, phase: .interrupted)
        lunch.displayState.statusText = "Lunch · Day 2 · IND lead by 41"
        let lunchAps = try #require(try JSONSerialization.jsonObject(with: Data(try EventPushPlan(event: lunch, policy: policy).payload.utf8))
                                    as? [String: Any])["aps"] as! [String: Any]
        #expect(lunchAps["event"] as? String == "update" && lunchAps["stale-date"] as? Int64 == lunch.emittedAt / 1000 + 7200)
        var stumpsOnEnd = stumps
        stumpsOnEnd.phase = .ended
        #expect(!stumpsOnEnd.endsDay && stumpsOnEnd.endsMatch, "stumps in the ending snapshot: the match's end wins")
    }

    @Test("the fast job encoder writes exactly MessageCodec's bytes, escapes included")
    func encoderMatchesCodec() throws {
        var tricky = ""
        for scalar in 0..<0x80 { tricky.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        tricky += "é…🏏 \u{2028}/\\\""
        let plan = try EventPushPlan(event: Self.event("m\"1/x", 9, key: 10), policy: PushPolicy())
        let targets = (0..<50).map(Self.target) + [PushTarget(token: "ab", env: .sandbox, userId: tricky, deviceId: "d\"\n")]
        var job = plan.job(for: PlannedChunk(shard: 3, chunk: 0, targets: targets), nowMilliseconds: 1_800_000_000_123)
        #expect(PushJobEncoder.encode(job) == (try MessageCodec.encode(job)))
        job.relevanceScore = nil
        job.payload = tricky
        job.attempt = 3
        #expect(PushJobEncoder.encode(job) == (try MessageCodec.encode(job)))
        job.relevanceScore = 7.25
        #expect(PushJobEncoder.encode(job) == (try MessageCodec.encode(job)))
        job.targets = []
        #expect(PushJobEncoder.encode(job) == (try MessageCodec.encode(job)))
        let broadcast = PushJob(
            jobId: "m:1:bc:sandbox:1", kind: .liveActivityUpdate, matchId: "m", stateSeq: 1, priority: 5, expiration: 1_800_000_120,
            relevanceScore: nil, payload: tricky, targets: [], createdAt: 1_800_000_000_000,
            channel: PushChannel(channelId: "dGVz+/dA==", env: .sandbox, storagePolicy: 0))
        #expect(broadcast.schema == 3)
        #expect(PushJobEncoder.encode(broadcast) == (try MessageCodec.encode(broadcast)), "a broadcast job's channel too")
        job.knownAt = 1_800_000_000_000
        job.ballAt = 1_799_999_990_000
        #expect(PushJobEncoder.encode(job) == (try MessageCodec.encode(job)), "the freshness times too")
    }

    @Test("every job of an event carries when its content became known (the event's poll) and the feed's ball time")
    func jobsCarryTheContentTimes() throws {
        var event = Self.event("m1", 4, key: 10)
        event.ballAt = event.emittedAt - 7_000
        let plan = try EventPushPlan(event: event, policy: PushPolicy())
        let token = plan.job(for: PlannedChunk(shard: 0, chunk: 0, targets: [Self.target(1)]), nowMilliseconds: event.emittedAt + 900)
        let broadcast = plan.broadcastJob(channelId: "Q0hBTg==", environment: .sandbox, storagePolicy: 0, generation: 1,
                                          nowMilliseconds: event.emittedAt + 900)
        for job in [token, broadcast] {
            #expect(job.knownAt == event.emittedAt && job.ballAt == event.emittedAt - 7_000 && job.createdAt == event.emittedAt + 900)
            let decoded = try MessageCodec.decode(PushJob.self, from: PushJobEncoder.encode(job))
            #expect(decoded.knownAt == job.knownAt && decoded.ballAt == job.ballAt, "read back by apns-sender")
        }
    }

    /// The largest realistic state: long names everywhere, Test-style scores, every optional field filled
    /// (the detector's worst-case test takes the longest names of the Cricsheet data; these are as long).
    static func worstCase() -> MatchBusEvent {
        let (a, b) = ("Royal Challengers Bengaluru Women", "Trinbago Knight Riders Women")
        let (p1, p2, p4) = ("Mohammad Hasnain Shah Afridi Jr", "Rahmanullah Gurbaz Zadran", "Christopher Ruthven Gayle-Smith")
        let dismissal = "\(p1) c sub (Mohammadullah) b Gayle-Smith 145 (132)"
        let alert = Alert(title: "Hat-trick! \(p4)", body: "\(p4) 10-144 (52.4) · \(dismissal)")
        let state = UnifiedDisplayState(
            matchId: "1442989", matchDisplayState: .live, title: "\(a) vs \(b)",
            subtitle: "Women's Premier League Eliminator · Dr. Y.S. Rajasekhara Reddy ACA-VDCA Cricket Stadium, Visakhapatnam",
            statusText: "\(a) won the toss and chose to bowl",
            compactLeading: .init(teamAbbr: "RCBW", score: "189/7d"), compactTrailing: .init(overs: "152.4", runRate: "12.34"),
            minimal: .init(text: "189/7d"),
            expanded: .init(
                batting: .init(abbr: "RCBW", name: "\(a) · Super Over 2", score: "445 & 189/7d", overs: "152.4"),
                bowling: .init(abbr: "TKRW", name: "\(b) · Super Over 2", score: "460 & 174/9d", overs: "148.5"),
                batters: [.init(name: p1, score: "145 (132)", onStrike: true), .init(name: p2, score: "112 (245)", onStrike: false)],
                bowler: .init(name: p4, figures: "10-144 (52.4)"), lastBalls: ["5nb", "4lb", "5wd", "W", "6", "5wd"],
                target: "Target 302 (11.2 ov, DLS)", equation: "Need 302 off 240", runRate: "RR 12.34", requiredRate: "RRR 36.00"),
            lockScreen: .init(headline: "RCBW 445 & 189/7d (152.4)", detail: "\(p1) 145 (132) · \(p2) 112 (245)",
                              footer: "\(alert.title) · \(alert.body)"),
            resultLine: "Match tied (\(a) won the Super Over)", updatedAt: 1_800_000_000)
        return MatchBusEvent(eventId: "1442989:999", matchId: "1442989", seq: 999, emittedAt: 1_800_000_000_000, displayState: state,
                             keyEvent: KeyEvent(kind: .hatTrick, priority: 10, alert: alert), phase: .live)
    }

    @Test("the worst-case state fits in 4,096 bytes untrimmed, as update and as end")
    func worstCaseFits() throws {
        var event = Self.worstCase()
        let update = try EventPushPlan(event: event, policy: PushPolicy())
        #expect(update.trimStep == 0 && update.payload.utf8.count <= LiveActivityPayload.maximumBytes)
        #expect(update.payload.utf8.count > 1_500)
        event.phase = .ended
        let end = try EventPushPlan(event: event, policy: PushPolicy())
        #expect(end.trimStep == 0 && end.payload.utf8.count <= LiveActivityPayload.maximumBytes)
    }

    @Test("an oversized state is trimmed to fit, keeping the score; an impossible one is refused")
    func trimming() throws {
        var event = Self.worstCase()
        event.displayState.statusText = String(repeating: "Rain delay · ", count: 200)
        event.displayState.expanded.lastBalls = Array(repeating: "5nb", count: 300)
        let plan = try EventPushPlan(event: event, policy: PushPolicy())
        #expect(plan.trimStep >= 1 && plan.payload.utf8.count <= LiveActivityPayload.maximumBytes)
        let json = try JSONSerialization.jsonObject(with: Data(plan.payload.utf8)) as! [String: Any]
        let content = (json["aps"] as! [String: Any])["content-state"] as! [String: Any]
        #expect((content["compactLeading"] as? [String: Any])?["score"] as? String == "189/7d")

        event.displayState.compactLeading.score = String(repeating: "9", count: 5_000)
        #expect(throws: LiveActivityPayloadError.self) { try EventPushPlan(event: event, policy: PushPolicy()) }
    }
}
