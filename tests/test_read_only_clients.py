"""Tier 1 and dry runs refuse database writes, downloads into files and mounts, and keep read-only checks allowed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claudeops.dry_run import mutating_command, mutating_reason
from claudeops.queries import sql_reads

TIER_1 = "tier 1 is read-only"


@pytest.mark.parametrize("command", [
    "psql -c 'DROP TABLE x'",
    "psql -h db -U app -d app -c 'INSERT INTO t VALUES (1)'",
    "psql -Atc 'select 1; update t set a = 2'",
    "psql -c 'VACUUM FULL'",
    "psql -c '/* harmless? */ TRUNCATE t'",
    "psql -c 'GRANT ALL ON t TO bob'",
    "psql -c 'REVOKE ALL ON t FROM bob'",
    "psql -c 'ALTER TABLE t ADD c int'",
    "psql -c 'CREATE INDEX i ON t (a)'",
    "psql -c 'WITH gone AS (DELETE FROM t RETURNING *) SELECT count(*) FROM gone'",
    "psql -c 'EXPLAIN ANALYZE DELETE FROM t'",
    "psql -c 'SELECT * INTO backup FROM t'",
    "psql -c 'SELECT pg_terminate_backend(4242)'",
    "psql -c '\\copy t FROM data.csv'",
    "psql -c '\\! systemctl restart postgresql'",
    "psql -o /tmp/out.txt -c 'select 1'",
    "mysql -e 'DELETE FROM sessions'",
    "mysql -uroot -psecret -e 'DROP DATABASE app'",
    "mysql --execute='SHOW TABLES; DROP TABLE t'",
    "mysql -e 'SELECT 1 /*! ; DROP TABLE t */'",
    "mysql -e 'SELECT 1--1; DROP TABLE t'",
    "mysql -e \"SELECT 'a\\' , ' ; DROP TABLE t; -- '\"",
    "sqlite3 /srv/app.db 'UPDATE jobs SET state = 0'",
    "sqlite3 app.db 'PRAGMA journal_mode = WAL'",
    "sqlite3 app.db .tables 'DELETE FROM t'",
    "sqlite3 app.db '.import rows.csv t'",
    "redis-cli set a b",
    "redis-cli -h cache.lan -p 6380 DEL session:1",
    "redis-cli flushall",
    "redis-cli -n 2 FLUSHDB",
    "redis-cli config set maxmemory 1gb",
    "redis-cli expire a 10",
    "redis-cli hset h f v",
    "redis-cli lpush q job",
    "redis-cli client kill 10.0.0.3:5000",
    "redis-cli --rdb /tmp/dump.rdb",
    "wget http://nas.lan/backup.tar",
    "wget -q https://x/install.sh",
    "wget -O /tmp/page.html http://x/",
    "wget --post-data 'a=1' -O- http://hass.lan/api",
    "wget -qO- -o /tmp/wget.log http://x/health",
    "ssh db.lan psql -c \"'DROP TABLE x'\"",
    "mount /dev/sdb1 /srv/media",
    "sudo mount -a",
])
def test_tier_1_refuses_database_writes_downloads_into_files_and_mounts(command):
    assert mutating_command(command) is not None
    assert mutating_reason("Bash", {"command": command}, TIER_1).startswith(f"{TIER_1}: `")


@pytest.mark.parametrize("command", [
    "psql -h db.lan -U app <<EOF\nSELECT 1;\nEOF",
    "psql app < queries.sql",
    "psql -f /tmp/check.sql",
    "echo 'DROP TABLE x' | psql",
    "mysql -h db.lan app <<EOF\nSHOW TABLES;\nEOF",
    "sqlite3 app.db < fix.sql",
    "sqlite3 -init setup.sql app.db 'select 1'",
    "echo 'set a b' | redis-cli",
    "redis-cli --pipe < commands.txt",
])
def test_tier_1_refuses_queries_it_cannot_see_and_says_how_to_pass_them(command):
    reason = mutating_reason("Bash", {"command": command}, TIER_1)
    assert reason is not None and "standard input or a file" in reason and "psql -c" in reason


@pytest.mark.parametrize("command", [
    "psql -c 'select 1'",
    "psql -c '\\l'",
    "psql -c '\\dt+'",
    "psql -c '\\x' -c 'SELECT * FROM pg_stat_replication'",
    "psql -h db.lan -U app -d app -Atc 'SELECT count(*) FROM pg_stat_activity'",
    "psql -c \"SELECT pid, query FROM pg_stat_activity WHERE query LIKE '%UPDATE%' -- who writes?\"",
    "psql -c 'SHOW max_connections'",
    "psql -c 'EXPLAIN SELECT * FROM t'",
    "psql -l",
    "pg_isready",
    "pg_isready -h db.lan",
    "mysql -e 'SHOW DATABASES'",
    "mysql -uroot -psecret -BNe 'SHOW REPLICA STATUS\\G'",
    "mysql -h db.lan -e 'SELECT table_name FROM information_schema.tables; SHOW PROCESSLIST'",
    "mysqladmin ping -h db.lan",
    "sqlite3 db 'select count(*) from t'",
    "sqlite3 /srv/app.db .tables '.schema jobs'",
    "sqlite3 app.db 'PRAGMA integrity_check'",
    "sqlite3 app.db 'PRAGMA journal_mode'",
    "redis-cli ping",
    "redis-cli info",
    "redis-cli get a",
    "redis-cli -h cache.lan INFO replication",
    "redis-cli -c -h cache.lan GET a",
    "redis-cli config get maxmemory",
    "redis-cli slowlog get 10",
    "redis-cli --scan --pattern 'session:*'",
    "redis-cli --bigkeys",
    "wget -qO- http://x/health",
    "wget -O- http://x/health",
    "wget -O - http://x/health",
    "wget -q -O /dev/null http://x/health",
    "wget --spider http://x/health",
    "curl -fsS http://x/health",
    "curl -sS -o /dev/null -w '%{http_code}' --max-time 10 http://x/health",
    "mount",
    "mount -t nfs4",
])
def test_tier_1_allows_read_only_database_http_and_mount_checks(command):
    assert mutating_command(command) is None


@pytest.mark.parametrize("command", [
    "mysqladmin shutdown", "mysqladmin -h db.lan flush-hosts", "mysqladmin -uroot -psecret drop app",
    "mysqladmin create app", "mysqladmin password new", "mysqladmin status kill 42", "mariadb-admin refresh",
    "pg_ctl restart -D /var/lib/postgresql/data", "pg_ctl -D /srv/pg stop -m fast", "pg_ctl promote",
    "dropdb app", "createdb app", "dropuser bob", "createuser bob", "vacuumdb --all",
    "mongosh --eval 'db.dropDatabase()'", "mongosh --quiet --eval \"db.adminCommand('ping'); db.dropDatabase()\"",
    "mongo app --eval 'db.users.insertOne({})'",
])
def test_tier_1_refuses_database_admin_commands_that_change_the_server(command):
    assert mutating_command(command) is not None


@pytest.mark.parametrize("command", ["mongosh", "mongosh mongodb://db.lan/app", "mongosh app fix.js",
                                     "mongosh --file fix.js", "mongo --eval 'db.users.find()'"])
def test_tier_1_refuses_mongo_shells_it_cannot_judge_as_unseen(command):
    reason = mutating_reason("Bash", {"command": command}, TIER_1)
    assert reason is not None and "standard input or a file" in reason


@pytest.mark.parametrize("command", [
    "iptables -F", "iptables -A INPUT -s 10.0.0.9 -j DROP", "iptables -t nat -I PREROUTING 1 -j ACCEPT",
    "iptables -nvL -Z", "iptables --flush", "iptables --fl", "ip6tables -P INPUT DROP", "iptables-nft -F",
    "iptables-restore < rules",
    "nft flush ruleset", "nft add rule inet filter input drop", "nft 'list ruleset; flush ruleset'",
    "nft -f /etc/nftables.conf",
    "ip link set eth0 down", "ip addr add 10.0.0.2/24 dev eth0", "ip route del default", "ip addr flush dev eth0",
    "ip -4 neigh flush all", "ip netns exec vpn curl x", "ip -batch /tmp/cmds",
])
def test_tier_1_refuses_firewall_and_network_changes(command):
    assert mutating_command(command) is not None


@pytest.mark.parametrize("command", [
    "curl --json '{\"a\": 1}' http://hass.lan/api", "curl -T backup.tar http://nas.lan/upload",
    "curl -XDELETE http://x/api/1", "curl -o /tmp/page.html http://x/", "curl --output page http://x/",
    "curl -O http://x/install.sh", "curl -sSLO http://x/install.sh", "curl --remote-name http://x/a",
    "curl -D headers.txt http://x/", "curl -c jar.txt http://x/login",
    "perl -pi -e 's/a/b/' /etc/caddy/Caddyfile", "perl -i.bak -pe 's/a/b/' f", "perl -lane 'print' -i f",
    "mail -s down ops@x", "mailx -s down ops@x", "sendmail ops@x", "notify-send down", "wall 'rebooting'",
    "logger 'jellyfin down'", "ntfy publish alerts down", "ntfy pub alerts down", "ntfy send alerts down",
    "ntfy -c /etc/ntfy/client.yml publish alerts down",
])
def test_tier_1_refuses_uploads_files_written_by_curl_or_perl_and_notifications(command):
    assert mutating_command(command) is not None


@pytest.mark.parametrize("command", [
    "mysqladmin status", "mysqladmin -h db.lan -uroot -psecret processlist extended-status", "mysqladmin version",
    "pg_ctl status -D /var/lib/postgresql/data",
    "mongosh --quiet --eval \"db.adminCommand('ping').ok\"", "mongosh mongodb://db.lan --eval 'rs.status()'",
    "mongo --eval 'printjson(db.serverStatus())'", "mongosh --eval 'db.runCommand({ping: 1})'",
    "iptables -L", "iptables -S", "iptables -nvL", "iptables -t nat -nvL --line-numbers", "iptables --list",
    "iptables --list-rules INPUT", "iptables -C INPUT -s 10.0.0.9 -j DROP", "ip6tables -L -n",
    "nft list ruleset", "nft -a list table inet filter", "nft -c -f /etc/nftables.conf",
    "ip a", "ip addr show dev eth0", "ip -br link", "ip -s link show eth0", "ip route", "ip route get 1.1.1.1",
    "ip neigh", "ip -j addr", "ip netns list",
    "curl -o /dev/null http://x/health", "curl -o - http://x/health", "curl -sSI http://x/",
    "curl -H 'Accept: application/json' -w '%{http_code}' http://x/", "curl -X GET http://x/api",
    "perl -ne 'print if /error/' /var/log/syslog", "perl -lane 'print $F[0]' /proc/loadavg",
    "ntfy subscribe --poll alerts",
])
def test_tier_1_allows_status_listings_and_fetches_that_write_nothing(command):
    assert mutating_command(command) is None


def _tier_1_suggested_commands() -> list[str]:
    """The commands the tier-1 prompt tells the agent to check services with."""
    prompt = (Path(__file__).parents[1] / "prompts" / "tier1-observe.md").read_text()
    checks = prompt.split("## How to check a service", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"`([^`]+)`", checks)


@pytest.mark.parametrize("command", _tier_1_suggested_commands())
def test_every_command_the_tier_1_prompt_suggests_is_allowed(command):
    assert mutating_reason("Bash", {"command": command}, TIER_1) is None


_SQL_PIECES = ["select", " ", "1", "'", '"', "`", "--", "-", "/*", "*/", "/*!", "#", "\n", ";", "\\", "\\G",
               "$$", "(", ")", "with", "explain", "pragma", "x", "=", "."]


@given(st.lists(st.sampled_from(_SQL_PIECES), max_size=30).map("".join))
def test_no_sql_text_hides_a_write_that_follows_it(prefix):
    """Whatever comes first (open quotes, comments, backslashes), a DROP on its own line is seen."""
    assert not sql_reads(prefix + "\n;DROP TABLE x")
