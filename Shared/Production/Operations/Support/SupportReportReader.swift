import BroadcastChannels
import Contracts
import DeliveryRecord
import Foundation
import LiveActivities
import Matches
import Postgres
import Runtime

/// Builds a `SupportReport` from the tables' stores: the user's devices, follows and Live Activities, each activity's
/// delivery record (and its channel's), its match, the record's gaps — then runs `ActivityDiagnosis` on each activity.
/// Tokens are masked here, before anything leaves the reader.
public struct SupportReportReader: Sendable {
    let database: PostgresClient
    let clock: any WallClock
    public var diagnosis = ActivityDiagnosis()

    public init(database: PostgresClient, clock: any WallClock = SystemWallClock()) {
        self.database = database
        self.clock = clock
    }

    /// Everything about a user; nil when the system knows nothing of them (no device, follow, activity or record).
    public func user(_ userId: String) async throws -> SupportReport? {
        try await report(.user, userId: userId, deviceId: nil, matchId: nil)
    }

    /// One device of a user; nil when neither the device nor any activity or record of it is known.
    public func device(userId: String, deviceId: String) async throws -> SupportReport? {
        try await report(.device, userId: userId, deviceId: deviceId, matchId: nil)
    }

    /// One Live Activity; nil when there is no row, record or follow for it.
    public func activity(matchId: String, userId: String, deviceId: String) async throws -> SupportReport? {
        try await report(.activity, userId: userId, deviceId: deviceId, matchId: matchId)
    }

    private func report(_ scope: SupportReport.Scope, userId: String, deviceId: String?, matchId: String?) async throws -> SupportReport? {
        let now = clock.now()
        let devices = try await DeviceStore(database: database).devices(userId: userId, deviceId: deviceId)
        let follows = try await FollowStore(database: database).follows(userId: userId).filter { matchId == nil || $0.matchId == matchId }
        let lives = try await LiveActivityStore(database: database).activities(userId: userId, deviceId: deviceId, matchId: matchId)
        let recordStore = DeliveryRecordStore(database: database)
        let records = try await recordStore.rows(userId: userId, deviceId: deviceId, limit: 200).filter { matchId == nil || $0.matchId == matchId }
        let unknown = devices.isEmpty && lives.isEmpty && records.isEmpty && (scope != .user || follows.isEmpty)
        guard !unknown else { return nil }
        let progress = try await recordStore.progress()
        var matches: [String: MatchFacts] = [:]
        var channels: [String: [BroadcastChannel]] = [:]
        var channelRows: [String: [DeliveryRecordStore.Row]] = [:]
        let matchIds = Set(follows.map(\.matchId) + lives.map(\.matchId) + records.map(\.matchId))
        for id in matchIds.sorted() {
            let summary = try await MatchStore(database: database).summary(matchId: id)
            let event = try await ActiveMatchStore(database: database).lastEvent(matchId: id)
            matches[id] = MatchFacts(title: summary?.title, status: summary?.status, isLive: summary?.isLive ?? false, phase: event?.phase,
                                     lastEventSeq: event?.seq, lastEventAt: event?.updatedAt)
            if lives.contains(where: { $0.matchId == id && $0.delivery == .channel }) {
                channels[id] = try await BroadcastChannelStore(database: database).channels(matchId: id)
                channelRows[id] = try await recordStore.channelRows(matchId: id)
            }
        }
        let followedAt = Dictionary(follows.map { ($0.matchId, $0.createdAt) }, uniquingKeysWith: { a, _ in a })
        var deviceIds = devices.map(\.deviceId)
        for id in (lives.map(\.deviceId) + records.map(\.deviceId)).sorted() where !deviceIds.contains(id) { deviceIds.append(id) }
        var reportDevices: [SupportReport.Device] = []
        for id in deviceIds {
            let device = devices.first { $0.deviceId == id }
            let deviceLives = lives.filter { $0.deviceId == id }
            let deviceRecords = records.filter { $0.deviceId == id }
            // Activities: the device's rows, its records without a row, and the live matches it follows without either.
            var activityMatches = deviceLives.map(\.matchId)
            for record in deviceRecords where !activityMatches.contains(record.matchId) { activityMatches.append(record.matchId) }
            if device != nil {
                for follow in follows where !activityMatches.contains(follow.matchId) && (matches[follow.matchId]?.isLive ?? false) {
                    activityMatches.append(follow.matchId)
                }
            }
            let activities = activityMatches.map { match -> SupportReport.Activity in
                let life = deviceLives.first { $0.matchId == match }
                let channel = life.flatMap { life in
                    channels[match]?.first { $0.channelId != nil && $0.channelId == life.channelId }
                        ?? channels[match]?.first { $0.environment.rawValue == life.apnsEnvironment }
                }
                let channelRecord = channel.flatMap { channel in channelRows[match]?.first { $0.deviceId == channel.environment.rawValue } }
                let facts = ActivityFacts(
                    matchId: match, life: life, record: deviceRecords.first { $0.matchId == match }, channelRecord: channelRecord,
                    channelState: channel?.state.rawValue, followedAt: followedAt[match], match: matches[match] ?? MatchFacts(isLive: false),
                    device: device, recordProgress: progress)
                return Self.activity(facts, channel: channel, findings: diagnosis.findings(facts, now: now))
            }
            reportDevices.append(SupportReport.Device(
                deviceId: id, registered: device != nil, apnsEnvironment: device?.apnsEnvironment, appVersion: device?.appVersion,
                osVersion: device?.osVersion, channelCapable: device?.channelCapable, pushToken: device?.pushToken.map(TokenMask.mask),
                pushToStartToken: device?.pushToStartToken.map(TokenMask.mask), updatedAt: device.map { ActivityDiagnosis.iso($0.updatedAt) },
                activities: activities))
        }
        return SupportReport(
            scope: scope, userId: userId, deviceId: deviceId, matchId: matchId, generatedAt: ActivityDiagnosis.iso(now), devices: reportDevices,
            record: .init(lastFoldAt: progress.lastFoldAt.map(ActivityDiagnosis.iso), gaps: progress.gaps.count))
    }

    static func activity(_ facts: ActivityFacts, channel: BroadcastChannel?, findings: [SupportFinding]) -> SupportReport.Activity {
        let life = facts.life
        let record = facts.record
        let match = facts.match
        let channelLast = [facts.channelRecord?.lastUpdate, facts.channelRecord?.lastKeyEvent, facts.channelRecord?.lastEnd]
            .compactMap { $0 }.max { $0.finishedAt < $1.finishedAt }
        return SupportReport.Activity(
            matchId: facts.matchId,
            match: .init(title: match.title, status: match.status, isLive: match.isLive, phase: match.phase, lastEventSeq: match.lastEventSeq,
                         lastEventAt: match.lastEventAt.map(ActivityDiagnosis.iso)),
            followedAt: facts.followedAt.map(ActivityDiagnosis.iso), status: life?.status.rawValue, endReason: life?.endReason?.rawValue,
            delivery: life?.delivery.rawValue, channelId: life?.channelId.map(TokenMask.mask), channelState: channel?.state.rawValue,
            updateToken: life?.updateToken.map(TokenMask.mask), startAttempts: life?.startAttempts,
            startedAt: life.map { ActivityDiagnosis.iso($0.createdAt) }, tokenRegisteredAt: life?.activatedAt.map(ActivityDiagnosis.iso),
            endedAt: life.flatMap { $0.status == .ended ? ActivityDiagnosis.iso($0.updatedAt) : nil },
            totals: record.map(SupportReport.Totals.init), lastStart: record?.lastStart, lastUpdate: record?.lastUpdate,
            lastKeyEvent: record?.lastKeyEvent, lastEnd: record?.lastEnd, lastFailure: record?.lastFailure, recent: record?.recent ?? [],
            channelTotals: facts.channelRecord.map(SupportReport.Totals.init), channelLastBroadcast: channelLast, findings: findings)
    }
}
