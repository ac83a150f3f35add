import Postgres

/// Every schema migration of the Sightscreen database, in order. Apply with
/// `PostgresMigrator(client).apply(SightscreenMigrations.all)`; never edit an applied one, add a new version.
public enum SightscreenMigrations {
    /// All migrations, ascending by version.
    public static let all: [PostgresMigration] = [initialTables, detectorState, pollerFeedHash, keyEventTime, feedBalls, activityDays, detectorStateOnce,
                                                   activityEnvironment, broadcastChannels, channelDelivery, deliveryRecord, outcomeSendID]

    /// Version 1: the tables of DESIGN.md "PostgreSQL" (replacing the seeds' DynamoDB tables).
    public static let initialTables = PostgresMigration(
        version: 1, name: "initial tables",
        sql: """
            -- A user's devices and their APNs tokens.
            CREATE TABLE devices (
                user_id              text        NOT NULL,
                device_id            text        NOT NULL,
                push_token           text,
                push_to_start_token  text,
                apns_env             text        NOT NULL DEFAULT 'production',
                app_version          text,
                updated_at           timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (user_id, device_id)
            );

            -- Which user follows which match; expires 48 h after the match ends (TTL sweep).
            CREATE TABLE match_follows (
                user_id     text        NOT NULL,
                match_id    text        NOT NULL,
                created_at  timestamptz NOT NULL DEFAULT now(),
                expires_at  timestamptz,
                PRIMARY KEY (user_id, match_id)
            );
            CREATE INDEX match_follows_match_id_idx ON match_follows (match_id);
            CREATE INDEX match_follows_expires_at_idx ON match_follows (expires_at) WHERE expires_at IS NOT NULL;

            -- One Live Activity per (match, user, device): the seeds' PK matchId / SK userId#deviceId.
            CREATE TABLE live_activities (
                match_id        text        NOT NULL,
                user_id         text        NOT NULL,
                device_id       text        NOT NULL,
                status          text        NOT NULL DEFAULT 'pending'
                                CONSTRAINT live_activities_status_check
                                CHECK (status IN ('pending', 'active', 'ended')),
                update_token    text,
                end_reason      text
                                CONSTRAINT live_activities_end_reason_check
                                CHECK (end_reason IN ('match_end', 'user_unfollow', 'user_dismissed', 'token_invalid')),
                start_attempts  integer     NOT NULL DEFAULT 0 CHECK (start_attempts >= 0),
                created_at      timestamptz NOT NULL DEFAULT now(),
                updated_at      timestamptz NOT NULL DEFAULT now(),
                expires_at      timestamptz,
                PRIMARY KEY (match_id, user_id, device_id),
                CONSTRAINT live_activities_end_reason_only_when_ended CHECK (end_reason IS NULL OR status = 'ended')
            );
            -- Fan-out: the active tokens of one match, read from the index alone.
            CREATE INDEX live_activities_active_idx ON live_activities (match_id)
                INCLUDE (update_token, user_id, device_id) WHERE status = 'active';
            -- TTL sweep: rows past expires_at, deleted in batches.
            CREATE INDEX live_activities_expires_at_idx ON live_activities (expires_at) WHERE expires_at IS NOT NULL;

            -- Detector state per live match.
            CREATE TABLE active_matches (
                match_id         text        PRIMARY KEY,
                previous_scores  jsonb       NOT NULL DEFAULT '{}',
                cooldowns        jsonb       NOT NULL DEFAULT '{}',
                last_balls       jsonb       NOT NULL DEFAULT '[]',
                poller_state     text        NOT NULL DEFAULT 'polling'
                                 CONSTRAINT active_matches_poller_state_check
                                 CHECK (poller_state IN ('polling', 'paused', 'ended')),
                display_state    jsonb,
                seq              bigint      NOT NULL DEFAULT 0,
                last_updated_at  timestamptz NOT NULL DEFAULT now()
            );

            -- The schedule, with a pre-formatted card for lists.
            CREATE TABLE matches (
                match_id    text        PRIMARY KEY,
                starts_at   timestamptz,
                status      text        NOT NULL DEFAULT '',
                is_live     boolean     NOT NULL DEFAULT false,
                card        jsonb       NOT NULL DEFAULT '{}',
                updated_at  timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX matches_starts_at_idx ON matches (starts_at);
            CREATE INDEX matches_live_idx ON matches (match_id) WHERE is_live;

            -- App bootstrap configuration: exactly one row.
            CREATE TABLE app_config (
                id           boolean     PRIMARY KEY DEFAULT true CONSTRAINT app_config_single_row CHECK (id),
                min_version  text        NOT NULL DEFAULT '1.0.0',
                maintenance  boolean     NOT NULL DEFAULT false,
                message      text        NOT NULL DEFAULT '',
                updated_at   timestamptz NOT NULL DEFAULT now()
            );
            INSERT INTO app_config DEFAULT VALUES;
            """)
}
