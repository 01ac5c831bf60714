"""Tier 1 and dry runs: database, HTTP, firewall and network clients read only with what they are given."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claudeops.toolgate import command_refusal, tool_refusal
from claudeops.toolgate.inline_code import awk_changes, sed_reads
from claudeops.toolgate.queries import sql_reads

TIER_1 = "tier 1 is read-only"


def refusal_message(command: str) -> str:
    refusal = tool_refusal("Bash", {"command": command}, TIER_1)
    assert refusal is not None, f"{command!r} was allowed"
    return refusal.message


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
    assert refusal_message(command).startswith(f"{TIER_1}: refused `")


@pytest.mark.parametrize("command", [
    "psql -h db.lan -U app <<EOF\nSELECT 1;\nEOF",
    "psql app < queries.sql",
    "echo 'DROP TABLE x' | psql",
    "mysql -h db.lan app <<EOF\nSHOW TABLES;\nEOF",
    "sqlite3 -readonly app.db < fix.sql",
    "echo 'set a b' | redis-cli",
    "redis-cli < commands.txt",
])
def test_tier_1_refuses_queries_it_cannot_see_and_says_how_to_pass_them(command):
    message = refusal_message(command)
    assert "the gate cannot see" in message and ("psql -c" in message or "redis-cli -h HOST ping" in message)


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
    "sqlite3 -readonly db 'select count(*) from t'",
    "sqlite3 -readonly /srv/app.db .tables '.schema jobs'",
    "sqlite3 -readonly app.db 'PRAGMA integrity_check'",
    "sqlite3 -readonly app.db 'PRAGMA journal_mode'",
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
    assert command_refusal(command) is None


@pytest.mark.parametrize("command", [
    "mysqladmin shutdown", "mysqladmin -h db.lan flush-hosts", "mysqladmin -uroot -psecret drop app",
    "mysqladmin create app", "mysqladmin password new", "mysqladmin status kill 42", "mariadb-admin refresh",
    "pg_ctl restart -D /var/lib/postgresql/data", "pg_ctl -D /srv/pg stop -m fast", "pg_ctl promote",
    "dropdb app", "createdb app", "dropuser bob", "createuser bob", "vacuumdb --all",
    "mongosh --eval 'db.dropDatabase()'", "psql -f /tmp/check.sql",
    "sqlite3 -init setup.sql app.db 'select 1'",
    "mongosh --quiet --eval \"db.adminCommand('ping'); db.dropDatabase()\"",
    "mongosh app --eval 'db.users.insertOne({})'",
])
def test_tier_1_refuses_database_admin_commands_that_change_the_server(command):
    assert command_refusal(command) is not None


@pytest.mark.parametrize("command", ["mongosh", "mongosh mongodb://db.lan/app", "mongosh app fix.js",
                                     "mongosh --file fix.js", "mongosh --eval 'db.users.find()'"])
def test_tier_1_refuses_mongo_shells_it_cannot_judge(command):
    assert command_refusal(command) is not None


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
    assert command_refusal(command) is not None


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
    assert command_refusal(command) is not None


@pytest.mark.parametrize("command", [
    "mysqladmin status", "mysqladmin -h db.lan -uroot -psecret processlist extended-status", "mysqladmin version",
    "mongosh --quiet --eval \"db.adminCommand('ping').ok\"", "mongosh mongodb://db.lan --eval 'rs.status()'",
    "mongosh --eval 'printjson(db.serverStatus())'", "mongosh --eval 'db.runCommand({ping: 1})'",
    "iptables -L", "iptables -S", "iptables -nvL", "iptables -t nat -nvL --line-numbers", "iptables --list",
    "iptables --list-rules INPUT", "iptables -C INPUT -s 10.0.0.9 -j DROP", "ip6tables -L -n",
    "nft list ruleset", "nft -a list table inet filter",
    "ip a", "ip addr show dev eth0", "ip -br link", "ip -s link show eth0", "ip route", "ip route get 1.1.1.1",
    "ip neigh", "ip -j addr", "ip netns list",
    "curl -o /dev/null http://x/health", "curl -o - http://x/health", "curl -sSI http://x/",
    "curl -H 'Accept: application/json' -w '%{http_code}' http://x/", "curl -X GET http://x/api",
])
def test_tier_1_allows_status_listings_and_fetches_that_write_nothing(command):
    assert command_refusal(command) is None


_SQL_PIECES = ["select", " ", "1", "'", '"', "`", "--", "-", "/*", "*/", "/*!", "#", "\n", ";", "\\", "\\G",
               "$$", "(", ")", "with", "explain", "pragma", "x", "=", "."]


@given(st.lists(st.sampled_from(_SQL_PIECES), max_size=30).map("".join))
def test_no_sql_text_hides_a_write_that_follows_it(prefix):
    """Whatever comes first (open quotes, comments, backslashes), a DROP on its own line is seen."""
    assert not sql_reads(prefix + "\n;DROP TABLE x")


@pytest.mark.parametrize("command", [
    "python3 -c 'import json,sys; print(json.load(sys.stdin))'", "python3 -c 'print(1)' --version",
    "perl -ne 'print if /error/' log", "ruby -e 'puts RUBY_VERSION'", "node -e 'console.log(process.version)'",
    "php -r 'echo PHP_VERSION;'", "python3 /tmp/fix.py", "python3 -m http.server", "python3 -m json.tool in out",
    "/srv/app/.venv/bin/python manage.py check",
])
def test_interpreters_of_general_languages_are_refused_even_for_code_that_only_prints(command):
    """Their code can reach anything in ways no scan lists: the gate does not look into it at all."""
    assert command_refusal(command) is not None


@pytest.mark.parametrize("command", [
    "awk 'BEGIN{system(\"docker restart x\")}'",
    "awk '{printf \"%s\\n\", $1 | \"tee /tmp/out\"}' access.log",
    "awk '{print | \"sh\"}' commands.txt",
    "gawk 'BEGIN{\"docker restart x\" | getline; print}'",
    "awk 'BEGIN { f = \"system\"; @f(\"touch /tmp/F\") }'",
    "ssh nas \"awk 'BEGIN{system(1)}'\"",
])
def test_awk_programs_that_can_run_commands_or_write_files_are_refused(command):
    assert "its program can run a command or write a file" in refusal_message(command)


@pytest.mark.parametrize("command", [
    "awk '{print $1}' file", "awk -F: '$3>1000' /etc/passwd", "awk '/error|warn/ {n++} END {print n}' /var/log/syslog",
    "python3 -m json.tool", "python3 -m json.tool --indent 2 status.json", "python3 --version",
    "jq .status status.json", "/usr/bin/docker ps", "/usr/bin/curl -fsS http://x/health", "/bin/cat /etc/hosts",
    "/usr/local/bin/docker logs --tail 20 x",
])
def test_read_only_one_liners_and_programs_by_system_path_pass(command):
    assert command_refusal(command) is None


@pytest.mark.parametrize(("script", "reads"), [
    ("p", True), ("1,20p", True), ("/error/p", True), ("s/#.*//", True), ("s/a/b/g;p", True), ("/x/{p;q}", True),
    (":a;N;ba", True), ("$!d", True), ("0~4p", True), ("s|/|x|g", True), ("y/abc/xyz/", True), ("/a/,/b/!d", True),
    ("s/a\\/b/c/", True), ("1d # a comment", True), ("\\%x%p", True), ("1i\\\nheader", True),
    ("1e touch F", False), ("w F", False), ("s/a/b/w F", False), ("s/a/x/e", False), ("p;W F", False),
    ("r /etc/shadow", False), ("R /etc/shadow", False), ("s/a/b", False), ("/a/ e", False), ("1v", False),
    ("s/x/y/gw F", False), ("s/a/b/;e", False), ("s/[/]/x/w F", False), (":a w F", False), ("b end w F", False),
    (":a;N;$!ba;s/\\n/ /g", True), ("/x/b skip;p;:skip", True),
])
def test_sed_scripts_read_only_with_commands_that_print_or_edit_in_memory(script, reads):
    assert sed_reads(script) is reads


@pytest.mark.parametrize(("program", "changes"), [
    ('{print ($2 > 80 ? "hot" : "ok")}', False), ('{print $1 " -> " $2}', False), ("NR>1 {print $2}", False),
    ('{getline line < "/etc/hosts"; print line}', False),
    ("{print $1 > 5}", True), ('{printf "%s\\n", $1 >> "log"}', True), ('{print |& "cmd"}', True),
    ('@load "filefuncs"', True),
])
def test_awk_print_redirects_only_outside_parentheses_and_strings(program, changes):
    assert awk_changes(program) is changes


@pytest.mark.parametrize("command", ["sqlite3 /srv/app.db 'select 1'", "sqlite3 -json app.db .tables"])
def test_sqlite3_without_readonly_is_refused_and_told_to_add_it(command):
    message = refusal_message(command)
    assert "creates the database file" in message and "sqlite3 -readonly DB" in message
