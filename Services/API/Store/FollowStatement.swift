/// The single SQL statement behind `FollowStore.follow`: one round trip and, being one statement,
/// one implicit transaction.
///
/// Parameters: `$1` user id, `$2` match id, `$3` now, `$4` assumed longest match (seconds), `$5`
/// retention after the end (seconds), `$6` now − start resend interval, `$7` most start attempts.
///
/// - `mi` reads the match (no row: unknown match, so nothing below writes and no row comes back) and
///   computes the follow expiry exactly like `FollowPolicy.followExpiry`:
///   max((starts_at or now) + longest match, now) + retention. The card is only read when the match
///   has no display state (it is then the fallback for start payloads).
/// - `f` upserts the follow, keeping the later expires_at.
/// - `devs` is the user's push-to-start devices, empty unless the match is live.
/// - `up` inserts PENDING rows, or re-enters PENDING an ended row or a PENDING row whose last start
///   is older than `$6` with fewer than `$7` attempts; ACTIVE rows are never touched. Their
///   expires_at is the follow's.
///
/// One result row per device that (re-)entered PENDING (ordered by device id), or a single row with
/// NULL device columns when none did; every row repeats the match and follow columns.
enum FollowStatement {
    static let sql = """
        WITH mi AS (
            SELECT m.match_id, m.is_live, m.starts_at,
                   CASE WHEN a.display_state IS NULL THEN m.card::text END AS card,
                   a.display_state::text AS display_state, COALESCE(a.seq, 0) AS seq,
                   GREATEST(COALESCE(m.starts_at, $3) + make_interval(secs => $4), $3) + make_interval(secs => $5) AS expires
            FROM matches m LEFT JOIN active_matches a ON a.match_id = m.match_id WHERE m.match_id = $2
        ), f AS (
            INSERT INTO match_follows (user_id, match_id, created_at, expires_at)
            SELECT $1, mi.match_id, $3, mi.expires FROM mi
            ON CONFLICT (user_id, match_id) DO UPDATE SET expires_at = GREATEST(match_follows.expires_at, EXCLUDED.expires_at)
            RETURNING expires_at
        ), devs AS (
            SELECT d.device_id, d.push_to_start_token, d.apns_env FROM devices d
            WHERE d.user_id = $1 AND d.push_to_start_token IS NOT NULL AND EXISTS (SELECT 1 FROM mi WHERE mi.is_live)
        ), up AS (
            INSERT INTO live_activities (match_id, user_id, device_id, status, start_attempts, created_at, updated_at, expires_at)
            SELECT $2, $1, devs.device_id, 'pending', 1, $3, $3, f.expires_at FROM devs CROSS JOIN f
            ON CONFLICT (match_id, user_id, device_id) DO UPDATE SET
                status = 'pending', end_reason = NULL, update_token = NULL,
                start_attempts = live_activities.start_attempts + 1, updated_at = $3, expires_at = EXCLUDED.expires_at
            WHERE live_activities.status = 'ended'
               OR (live_activities.status = 'pending' AND live_activities.updated_at <= $6
                   AND live_activities.start_attempts < $7)
            RETURNING device_id, start_attempts
        )
        SELECT mi.is_live, mi.starts_at, mi.card, mi.display_state, mi.seq, COALESCE(f.expires_at, mi.expires) AS expires_at,
               s.device_id, s.start_attempts, s.push_to_start_token, s.apns_env
        FROM mi CROSS JOIN f
        LEFT JOIN (
            SELECT up.device_id, up.start_attempts, devs.push_to_start_token, devs.apns_env
            FROM up JOIN devs ON devs.device_id = up.device_id
        ) s ON true
        ORDER BY s.device_id
        """
}
