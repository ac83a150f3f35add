import Contracts
import Foundation

/// A SportMonks Cricket v2.0 fixture with its includes embedded as bare keys (no `{"data":…}` around includes).
///
/// Decoding is lenient where SportMonks is (unknown keys ignored, nulls accepted on optional fields) and
/// strict where a detector depends on the value: `id`, `status`, every `runs` row's totals and every ball.
/// Encoding writes the same keys and JSON types as the real reply: nullable scalars and to-one includes
/// are written as `null` when nil; to-many includes (`balls`, `runs`, …) are omitted when nil (not requested).
public struct SportMonksFixture: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var leagueId: Int?
    public var seasonId: Int?
    public var stageId: Int?
    public var round: String?
    public var localteamId: Int?
    public var visitorteamId: Int?
    /// UTC timestamp "2026-10-09T13:00:00.000000Z".
    public var startingAt: String?
    /// Format: "T20I", "T20", "ODI", "Test", … (match case-insensitively).
    public var type: String?
    /// NOT an in-play flag (true on finished fixtures too); use `status`.
    public var live: Bool?
    public var status: SportMonksStatus
    public var lastPeriod: JSONValue?
    /// null, "Target 183 runs", or the result text once finished.
    public var note: String?
    public var venueId: Int?
    public var tossWonTeamId: Int?
    public var winnerTeamId: Int?
    public var drawNoresult: JSONValue?
    public var firstUmpireId: Int?
    public var secondUmpireId: Int?
    public var tvUmpireId: Int?
    public var refereeId: Int?
    public var manOfMatchId: Int?
    public var manOfSeriesId: Int?
    /// Scheduled overs per side (20 in T20s), null for Tests.
    public var totalOversPlayed: Int?
    /// Toss decision: "batting" or "bowling".
    public var elected: String?
    public var superOver: Bool?
    public var followOn: Bool?
    public var localteamDlData: SportMonksDLData?
    public var visitorteamDlData: SportMonksDLData?
    public var rpcOvers: JSONValue?
    public var rpcTarget: JSONValue?
    public var weatherReport: JSONValue?

    // Includes, in the server's order.
    public var league: SportMonksLeague?
    public var season: SportMonksSeason?
    public var localteam: SportMonksTeam?
    public var visitorteam: SportMonksTeam?
    public var batting: [SportMonksBatting]?
    public var bowling: [SportMonksBowling]?
    public var runs: [SportMonksRun]?
    public var scoreboards: [SportMonksScoreboard]?
    public var lineup: [SportMonksPlayer]?
    public var balls: [SportMonksBall]?
    public var winnerteam: SportMonksTeam?
    public var tosswon: SportMonksTeam?
    public var venue: SportMonksVenue?
    public var stage: SportMonksStage?

    /// A fixture with only its id and status set; fill the rest field by field.
    public init(id: Int, status: SportMonksStatus) {
        self.resource = "fixtures"
        self.id = id
        self.status = status
    }

    /// Decodes a single-fixture envelope `{"data": {...}}` (GET /fixtures/{id}).
    /// - Throws: `SportMonksDecodeError` naming the fixture id and the path, e.g. "data.runs[0].score".
    public static func decode(from data: Data) throws(SportMonksDecodeError) -> SportMonksFixture {
        do {
            return try JSONDecoder().decode(SingleEnvelope.self, from: data).data
        } catch {
            throw SportMonksDecodeError.from(error, data: data)
        }
    }

    /// Encodes as a single-fixture envelope `{"data": {...}}`, compact, slashes escaped like SportMonks.
    public func encodedEnvelope() throws -> Data {
        try JSONEncoder().encode(SingleEnvelope(data: self))
    }

    /// Innings totals rebuilt from `balls`, keyed by scoreboard ("S1", …). Empty when balls were not included.
    public func inningsScoresFromBalls() -> [String: InningsScore] {
        InningsScore.byScoreboard(balls ?? [])
    }

    struct SingleEnvelope: Codable {
        var data: SportMonksFixture
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case leagueId = "league_id"
        case seasonId = "season_id"
        case stageId = "stage_id"
        case round
        case localteamId = "localteam_id"
        case visitorteamId = "visitorteam_id"
        case startingAt = "starting_at"
        case type, live, status
        case lastPeriod = "last_period"
        case note
        case venueId = "venue_id"
        case tossWonTeamId = "toss_won_team_id"
        case winnerTeamId = "winner_team_id"
        case drawNoresult = "draw_noresult"
        case firstUmpireId = "first_umpire_id"
        case secondUmpireId = "second_umpire_id"
        case tvUmpireId = "tv_umpire_id"
        case refereeId = "referee_id"
        case manOfMatchId = "man_of_match_id"
        case manOfSeriesId = "man_of_series_id"
        case totalOversPlayed = "total_overs_played"
        case elected
        case superOver = "super_over"
        case followOn = "follow_on"
        case localteamDlData = "localteam_dl_data"
        case visitorteamDlData = "visitorteam_dl_data"
        case rpcOvers = "rpc_overs"
        case rpcTarget = "rpc_target"
        case weatherReport = "weather_report"
        case league, season, localteam, visitorteam, batting, bowling, runs, scoreboards, lineup, balls
        case winnerteam, tosswon, venue, stage
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(leagueId, forKey: .leagueId)
        try c.encode(seasonId, forKey: .seasonId)
        try c.encode(stageId, forKey: .stageId)
        try c.encode(round, forKey: .round)
        try c.encode(localteamId, forKey: .localteamId)
        try c.encode(visitorteamId, forKey: .visitorteamId)
        try c.encode(startingAt, forKey: .startingAt)
        try c.encode(type, forKey: .type)
        try c.encode(live, forKey: .live)
        try c.encode(status, forKey: .status)
        try c.encode(lastPeriod ?? .null, forKey: .lastPeriod)
        try c.encode(note, forKey: .note)
        try c.encode(venueId, forKey: .venueId)
        try c.encode(tossWonTeamId, forKey: .tossWonTeamId)
        try c.encode(winnerTeamId, forKey: .winnerTeamId)
        try c.encode(drawNoresult ?? .null, forKey: .drawNoresult)
        try c.encode(firstUmpireId, forKey: .firstUmpireId)
        try c.encode(secondUmpireId, forKey: .secondUmpireId)
        try c.encode(tvUmpireId, forKey: .tvUmpireId)
        try c.encode(refereeId, forKey: .refereeId)
        try c.encode(manOfMatchId, forKey: .manOfMatchId)
        try c.encode(manOfSeriesId, forKey: .manOfSeriesId)
        try c.encode(totalOversPlayed, forKey: .totalOversPlayed)
        try c.encode(elected, forKey: .elected)
        try c.encode(superOver, forKey: .superOver)
        try c.encode(followOn, forKey: .followOn)
        try c.encode(localteamDlData ?? SportMonksDLData(), forKey: .localteamDlData)
        try c.encode(visitorteamDlData ?? SportMonksDLData(), forKey: .visitorteamDlData)
        try c.encode(rpcOvers ?? .null, forKey: .rpcOvers)
        try c.encode(rpcTarget ?? .null, forKey: .rpcTarget)
        try c.encode(weatherReport ?? .array([]), forKey: .weatherReport)
        try c.encode(league, forKey: .league)
        try c.encode(season, forKey: .season)
        try c.encode(localteam, forKey: .localteam)
        try c.encode(visitorteam, forKey: .visitorteam)
        try c.encodeIfPresent(batting, forKey: .batting)
        try c.encodeIfPresent(bowling, forKey: .bowling)
        try c.encodeIfPresent(runs, forKey: .runs)
        try c.encodeIfPresent(scoreboards, forKey: .scoreboards)
        try c.encodeIfPresent(lineup, forKey: .lineup)
        try c.encodeIfPresent(balls, forKey: .balls)
        try c.encode(winnerteam, forKey: .winnerteam)
        try c.encode(tosswon, forKey: .tosswon)
        try c.encode(venue, forKey: .venue)
        try c.encode(stage, forKey: .stage)
    }
}
