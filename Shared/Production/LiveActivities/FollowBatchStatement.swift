/// The single SQL statement behind a follow (`FollowStore.follow(_:policy:now:)`): the follow's `match_follows` row and,
/// in the same statement, the follow transition of `LiveActivityStore`'s state machine: any number of distinct
/// (user, match) follows in one round trip and, being one statement, one implicit transaction
/// (all of a batch is written or none of it).
///
/// Parameters: `$1` user ids (`text[]`), `$2` match ids (`text[]`, same length; the pairs must be
/// distinct, or ON CONFLICT would affect a row twice), `$3` now, `$4` assumed longest match
/// (seconds), `$5` retention after the end (seconds), `$6` now − start resend interval, `$7` most
/// start attempts.
///
/// Per pair exactly the rules of a single follow:
/// - `mi` reads the match (none: unknown match, so nothing below writes for that pair and no row
///   comes back for it) and computes the follow expiry exactly like `FollowPolicy.followExpiry`:
///   max((starts_at or now) + longest match, now) + retention. The card is only read when the
///   match has no display state (it is then the fallback for start payloads).
/// - `f` upserts the follow, keeping the later expires_at.
/// - `devs` is the user's push-to-start devices, for matches in play only (live, not at close of
///   play: a follow at stumps gets its activity from the orchestrator when play resumes).
/// - `up` inserts PENDING rows, or re-enters PENDING an ended row (a fresh start: `day_start_attempt`
///   is the new attempt) or a PENDING row whose last start is older than `$6` with fewer than `$7`
///   attempts since its latest fresh start; ACTIVE rows are never touched. Their expires_at is the follow's.
/// - `overnight`: at close of play, a re-follow turns the user's rows ended by an unfollow or a dismissal
///   into day_end, so the orchestrator starts them with everyone else's when play resumes.
/// - The result's `is_live` is "in play" (live and not at close of play): a follower at stumps is told the
///   match is not live, so the app does not start an activity locally overnight.
///
/// Rows are written in key order (follows by (user, match), activities by (match, user, device)),
/// so concurrent batches mostly take their row locks in one order; a deadlock PostgreSQL still
/// detects (e.g. against an unfollow, which locks activities before the follow) aborts the whole
/// statement, and `FollowStore` runs it once more.
///
/// Result: per known pair (column `i`, the 1-based position in the arrays) one row per device that
/// (re-)entered PENDING (ordered by device id), or a single row with NULL device columns when none
/// did; every row repeats the match and follow columns.
enum FollowBatchStatement {
    static let sql = """
        WITH req AS (
            SELECT r.user_id, r.match_id, r.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(user_id, match_id, i)
        ), mi AS (
            SELECT req.i, req.user_id, m.match_id, m.is_live, m.is_live AND NOT m.close_of_play AS in_play, m.starts_at,
                   CASE WHEN a.display_state IS NULL THEN m.card::text END AS card,
                   a.display_state::text AS display_state, COALESCE(a.seq, 0) AS seq,
                   GREATEST(COALESCE(m.starts_at, $3) + make_interval(secs => $4), $3) + make_interval(secs => $5) AS expires
            FROM req JOIN matches m ON m.match_id = req.match_id LEFT JOIN active_matches a ON a.match_id = m.match_id
        ), f AS (
            INSERT INTO match_follows (user_id, match_id, created_at, expires_at)
            SELECT mi.user_id, mi.match_id, $3, mi.expires FROM mi ORDER BY mi.user_id, mi.match_id
            ON CONFLICT (user_id, match_id) DO UPDATE SET expires_at = GREATEST(match_follows.expires_at, EXCLUDED.expires_at)
            RETURNING user_id, match_id, expires_at
        ), devs AS (
            SELECT mi.user_id, mi.match_id, d.device_id, d.push_to_start_token, d.apns_env,
                   CASE WHEN d.channel_capable THEN bc.channel_id END AS start_channel_id
            FROM mi JOIN devices d ON d.user_id = mi.user_id AND d.push_to_start_token IS NOT NULL
            LEFT JOIN broadcast_channels bc ON bc.match_id = mi.match_id AND bc.apns_env = d.apns_env AND bc.state = \(Literal.channelActive)
            WHERE mi.in_play
        ), up AS (
            INSERT INTO live_activities (match_id, user_id, device_id, status, start_attempts, created_at, updated_at, expires_at)
            SELECT devs.match_id, devs.user_id, devs.device_id, \(Literal.pending), 1, $3, $3, f.expires_at
            FROM devs JOIN f ON f.user_id = devs.user_id AND f.match_id = devs.match_id
            ORDER BY devs.match_id, devs.user_id, devs.device_id
            ON CONFLICT (match_id, user_id, device_id) DO UPDATE SET
                status = \(Literal.pending), end_reason = NULL, update_token = NULL, activated_at = NULL,
                delivery = \(Literal.tokenMode), channel_id = NULL,
                start_attempts = live_activities.start_attempts + 1, updated_at = $3, expires_at = EXCLUDED.expires_at,
                day_start_attempt = CASE WHEN live_activities.status = \(Literal.ended) THEN live_activities.start_attempts + 1
                                         ELSE live_activities.day_start_attempt END
            WHERE live_activities.status = \(Literal.ended)
               OR (live_activities.status = \(Literal.pending) AND live_activities.updated_at <= $6
                   AND live_activities.start_attempts - live_activities.day_start_attempt + 1 < $7)
            RETURNING match_id, user_id, device_id, start_attempts
        ), overnight AS (
            UPDATE live_activities la SET end_reason = \(Literal.dayEnd), updated_at = $3
            FROM mi JOIN f ON f.user_id = mi.user_id AND f.match_id = mi.match_id
            WHERE mi.is_live AND NOT mi.in_play AND la.match_id = mi.match_id AND la.user_id = mi.user_id
              AND la.status = \(Literal.ended)
              AND la.end_reason IN (\(Literal.userUnfollow), \(Literal.userDismissed))
            RETURNING la.match_id
        )
        SELECT mi.i, mi.in_play AS is_live, mi.starts_at, mi.card, mi.display_state, mi.seq, f.expires_at,
               s.device_id, s.start_attempts, s.push_to_start_token, s.apns_env, s.start_channel_id
        FROM mi JOIN f ON f.user_id = mi.user_id AND f.match_id = mi.match_id
        LEFT JOIN (
            SELECT up.user_id, up.match_id, up.device_id, up.start_attempts, devs.push_to_start_token, devs.apns_env,
                   devs.start_channel_id
            FROM up JOIN devs ON devs.user_id = up.user_id AND devs.match_id = up.match_id AND devs.device_id = up.device_id
        ) s ON s.user_id = mi.user_id AND s.match_id = mi.match_id
        ORDER BY mi.i, s.device_id
        """
}
