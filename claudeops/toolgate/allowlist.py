"""The allow-list: the programs tier 1 and dry runs may run, with their read-only sub-commands and options.

Everything not listed here is refused. A program is listed when what it does with the listed
options cannot change the system: files, services, containers, the network's configuration,
remote APIs (a GET an API treats as an action is the one kind of write no list can see). Options
that write (``sort -o``, ``curl -o FILE``), follow for ever (``tail -f``) or run other programs
(``git -c``, ``ssh -o ProxyCommand``) are left out. The operator extends the list with
``[toolgate] allow`` entries (:func:`parse_entry`), documented in docs/runner.md. The module is
long because it is one table: a program's rule sits where a reader looks for the program.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from claudeops.toolgate import judges
from claudeops.toolgate.rules import ANYTHING, Rule, rule

_GREP = rule(
    "-i -v -c -l -L -n -h -H -o -q -s -r -R -w -x -E -F -G -P -z -a -I -b -U -y -NUM --color[=] --colour[=] "
    "-m= -A= -B= -C= -e= -f= -d= -D= --include= --exclude= --exclude-dir= --max-count= --after-context= "
    "--before-context= --context= --regexp= --file= --ignore-case --no-ignore-case --invert-match --count "
    "--files-with-matches --files-without-match --line-number --no-filename --with-filename --only-matching "
    "--quiet --silent --no-messages --recursive --dereference-recursive --word-regexp --line-regexp "
    "--extended-regexp --fixed-strings --basic-regexp --perl-regexp --null-data --text --binary-files= --label= "
    "--null --byte-offset --initial-tab --line-buffered --directories= --devices=")
_SORT = rule(
    "-b -d -f -g -h -i -M -n -r -R -s -u -V -z -c -C -k= -t= --key= --field-separator= --ignore-leading-blanks "
    "--dictionary-order --ignore-case --general-numeric-sort --human-numeric-sort --ignore-nonprinting "
    "--month-sort --numeric-sort --random-sort --reverse --stable --unique --version-sort --zero-terminated "
    "--check[=]")
_HEAD_TAIL = rule("-c= -n= -q -v -z -NUM --bytes= --lines= --quiet --silent --verbose --zero-terminated")
_DOCKER_LOGS = rule("--since= --until= --tail= -n= -t --timestamps --details")
_DOCKER_PS = rule("-a -q -n= -l -s --all --quiet --last= --latest --size --no-trunc --format= -f= --filter=")
_DOCKER_INSPECT = rule("-f= --format= -s --size --type=")
_DOCKER_STATS = rule("-a --all --no-stream --no-trunc --format=")
_DOCKER_LS = rule("-a -q --all --quiet --no-trunc --format= -f= --filter= --digests")
_DOCKER_EXEC = rule("-i -t -T -u= -w= --interactive --tty --user= --workdir= --index=", permute=False,
                    runs=judges.runs_in_container)
_COMPOSE = rule(
    "-f= -p= --file= --project-name= --project-directory= --env-file= --profile= --ansi= --progress= "
    "--compatibility", permute=False, subcommands={
        "ps": rule("-a -q --all --quiet --services --format= --filter= --status= --no-trunc"),
        "logs": rule("-t --timestamps --no-color --no-log-prefix --since= --until= --tail= -n= --index="),
        "config": rule("-q --quiet --services --volumes --images --profiles --hash= --format= --no-interpolate "
                       "--resolve-image-digests"),
        "images": rule("-q --quiet --format="), "top": rule(), "ls": _DOCKER_LS, "version": rule("--short --format="),
        "port": rule("--index= --protocol="), "exec": _DOCKER_EXEC,
    })
_DOCKER_OBJECT_READS = {"ls": _DOCKER_LS, "list": _DOCKER_LS, "inspect": _DOCKER_INSPECT}
_DOCKER = rule(
    "-D --debug -c= --context= -l= --log-level= -v --version", permute=False, bare=True, subcommands={
        "ps": _DOCKER_PS, "inspect": _DOCKER_INSPECT, "logs": _DOCKER_LOGS, "stats": _DOCKER_STATS,
        "top": ANYTHING, "port": rule(), "diff": rule(), "version": rule("-f= --format="),
        "info": rule("-f= --format="), "images": _DOCKER_LS,
        "events": rule("--since= --until= -f= --filter= --format="),
        "history": rule("-H -q --human --quiet --no-trunc --format="), "exec": _DOCKER_EXEC,
        "compose": _COMPOSE,
        "system": rule(permute=False, subcommands={"df": rule("-v --verbose --format="),
                                                   "info": rule("-f= --format=")}),
        "container": rule(permute=False, subcommands={
            **_DOCKER_OBJECT_READS, "ls": _DOCKER_PS, "list": _DOCKER_PS, "ps": _DOCKER_PS, "logs": _DOCKER_LOGS,
            "stats": _DOCKER_STATS, "top": ANYTHING, "port": rule(), "diff": rule(), "exec": _DOCKER_EXEC}),
        "image": rule(permute=False, subcommands={**_DOCKER_OBJECT_READS,
                                                  "history": rule("-H -q --human --quiet --no-trunc --format=")}),
        "network": rule(permute=False, subcommands=_DOCKER_OBJECT_READS),
        "volume": rule(permute=False, subcommands=_DOCKER_OBJECT_READS),
        "context": rule(permute=False, subcommands={**_DOCKER_OBJECT_READS, "show": rule()}),
    })
_SYSTEMCTL_READS = {
    name: rule() for name in (
        "status", "is-active", "is-enabled", "is-failed", "is-system-running", "show", "cat", "list-units",
        "list-unit-files", "list-timers", "list-sockets", "list-dependencies", "list-jobs", "list-machines",
        "get-default", "help")}
_SYSTEMCTL = rule(
    "-a -l -q -r --all --full --quiet --recursive --no-pager --no-legend --plain --failed --user --system --value "
    "--no-ask-password --reverse --after --before --show-types -t= --type= --state= -p= --property= -P= -n= "
    "--lines= -o= --output= -M= --machine= --timestamp=", bare=True, subcommands=_SYSTEMCTL_READS)
_JOURNALCTL = rule(
    "-a -b[=] -e -k -l -m -N -q -r -x --all --boot[=] --catalog --dmesg --full --merge --no-full --no-hostname "
    "--no-pager --no-tail --pager-end --quiet --reverse --system --user --utc --list-boots --disk-usage --header "
    "--fields -n[=] --lines[=] -u= --unit= --user-unit= -t= --identifier= -p= --priority= -g= --grep= "
    "--case-sensitive[=] -S= --since= -U= --until= -o= --output= --output-fields= -F= --field= -D= --directory= "
    "--file= -M= --machine= -c= --cursor= --after-cursor= --facility= -T= --exclude-identifier=")
_CURL = rule(
    "-s -S -f -L -I -i -v -k -4 -6 -g -N -G -j -# --silent --show-error --fail --fail-with-body --location "
    "--head --include --verbose --insecure --ipv4 --ipv6 --globoff --no-buffer --compressed --http1.0 --http1.1 "
    "--http2 --http2-prior-knowledge --http3 --no-progress-meter --progress-bar --get --junk-session-cookies "
    "--ssl-reqd --tlsv1 --tlsv1.0 --tlsv1.1 --tlsv1.2 --tlsv1.3 --path-as-is --no-keepalive --raw --tr-encoding "
    "--anyauth --basic --digest --ntlm --negotiate --location-trusted --proxy-insecure --disable --no-alpn "
    "-m= -o= -w= -H= -A= -u= -X= -e= -b= -r= -x= -U= -E= --max-time= --connect-timeout= --output= --write-out= "
    "--header= --user-agent= --user= --request= --referer= --cookie= --range= --proxy= --proxy-user= --url= "
    "--resolve= --connect-to= --cacert= --capath= --cert= --key= --cert-type= --key-type= --retry= --retry-delay= "
    "--retry-max-time= --max-redirs= --noproxy= --unix-socket= --abstract-unix-socket= --interface= "
    "--dns-servers= --tls-max= --ciphers= --pinnedpubkey= --oauth2-bearer= --aws-sigv4= --speed-time= "
    "--speed-limit= --limit-rate= --max-filesize= --expect100-timeout= --happy-eyeballs-timeout-ms= "
    "--proto= --proto-redir= --tls13-ciphers= --crlfile= --local-port=", judge=judges.curl)
_WGET = rule(
    "-q -S -v -4 -6 -nv --quiet --verbose --no-verbose --server-response --spider --no-check-certificate "
    "--no-cache --no-proxy --inet4-only --inet6-only --no-dns-cache --content-on-error -O= --output-document= "
    "-T= --timeout= -t= --tries= -U= --user-agent= --header= --max-redirect= --user= --password= "
    "--connect-timeout= --read-timeout= --dns-timeout= --ca-certificate= --certificate= --private-key=",
    judge=judges.wget)
_SSH: Rule = rule("-4 -6 -a -C -n -q -T -t -v -x -o= -p= -i= -l= -c= -m= -b= -e=", permute=False,
                  judge=judges.ssh, runs=lambda args: judges.runs_ssh(args, _SSH), patterns=False)
"""ssh HOST COMMAND: not ``-F`` (a config file may run a ProxyCommand), ``-E`` (a log file), ``-f``,
``-L``/``-R``/``-D``/``-W`` (forwarding, background), ``-J``, ``-M``/``-S`` (control sockets), ``-A``/``-X``."""
_SHELL = rule("-c -e -u -x -o=", permute=False, runs=judges.runs_script)
_OPENSSL = rule(permute=False, subcommands={
    "s_client": rule("-connect= -servername= -showcerts -brief -verify= -verify_return_error -CAfile= -CApath= "
                     "-starttls= -alpn= -tls1_2 -tls1_3 -no_ign_eof -quiet -4 -6 -host= -port= -timeout "
                     "-cert= -key= -crlf -status -prexit -verify_hostname= -name= -xmpphost=", whole=True,
                     judge=judges.s_client),
    "x509": rule("-noout -enddate -startdate -dates -subject -issuer -serial -fingerprint -sha1 -sha256 -text "
                 "-email -purpose -pubkey -modulus -ocspid -ocsp_uri -hash -subject_hash -issuer_hash -in= "
                 "-inform= -checkend= -nameopt= -certopt= -ext=", whole=True, operands=0),
    "version": rule("-a -v -b -o -f -p -d -e -c -r", whole=True, operands=0),
    "verify": rule("-CAfile= -CApath= -untrusted= -purpose= -verbose -show_chain -crl_check -x509_strict "
                   "-verify_hostname= -partial_chain -no-CAfile -no-CApath", whole=True),
    "ciphers": rule("-v -V -s -tls1_2 -tls1_3 -stdname", whole=True, operands=1),
})
_KUBECTL_GLOBAL = ("-n= --namespace= --context= --kubeconfig= --cluster= --user= -s= --server= --request-timeout= "
                   "-v= --insecure-skip-tls-verify --as= -A --all-namespaces -o= --output= -l= --selector= "
                   "--field-selector= --show-labels --no-headers --sort-by= -L= --label-columns= --show-kind "
                   "-c= --container= --tail= --since= --since-time= --timestamps --previous -p --all-containers "
                   "--prefix --chunk-size= --show-events= --raw=")
_KUBECTL = rule(_KUBECTL_GLOBAL, subcommands={
    name: rule() for name in ("get", "describe", "logs", "top", "version", "cluster-info", "api-resources",
                              "api-versions", "explain", "events")})
_GIT_LOG = rule(
    "--oneline --stat --shortstat --name-only --name-status -p -u --patch --no-patch -s --graph --decorate "
    "--no-decorate --all --branches --tags --remotes --merges --no-merges --first-parent --reverse --date= "
    "--since= --until= --after= --before= --author= --committer= --grep= -i --regexp-ignore-case -n= "
    "--max-count= --skip= --format= --pretty[=] --abbrev-commit --no-color --color[=] --follow -NUM -- "
    "--no-ext-diff --no-textconv --summary --numstat --word-diff[=] -w -b --ignore-all-space --relative[=]")
_GIT = rule(
    "-C= --git-dir= --work-tree= --no-pager -P --no-replace-objects --literal-pathspecs --bare --version",
    permute=False, bare=True, subcommands={
        "log": _GIT_LOG, "show": _GIT_LOG,
        "diff": replace(_GIT_LOG, flags=_GIT_LOG.flags | {"--cached", "--staged", "--exit-code", "--quiet"}),
        "branch": rule("-a -r -v -vv --all --remotes --verbose --list --no-color --show-current --contains= "
                       "--merged[=] --no-merged[=] --format= --sort=", operands=0),
        "remote": rule("-v --verbose", operands=0), "rev-parse": rule(
            "--short[=] --abbrev-ref[=] --show-toplevel --is-inside-work-tree --git-dir --verify -q --quiet"),
        "describe": rule("--tags --always --long --abbrev= --dirty[=] --all --exact-match"),
        "ls-files": rule("-c -d -m -o -s -z --cached --deleted --modified --others --stage --exclude-standard "
                         "--error-unmatch"),
        "blame": rule("-L= -e -s -w --date= -M -C --porcelain --line-porcelain"),
        "shortlog": rule("-s -n -e --summary --numbered --email --since= --until="),
        "rev-list": rule("--count --all --max-count= -n= --since= --until= --reverse"),
        "cat-file": rule("-t -s -p -e"), "ls-tree": rule("-r -d -t -l --name-only --full-tree"),
    })
_IP = rule("-4 -6 -s -d -j -p -o -c -h -br -brief -json -pretty -stats -statistics -details -oneline -color[=] "
           "-human -r -resolve -a -all -N -numeric -t -timestamp -ts -n= -netns= -f= -family=", whole=True,
           permute=False, judge=judges.ip, patterns=False)
_IPTABLES = rule("-L -S -C -n -v -x -t= -w= -W= --list --list-rules --check --numeric --verbose --exact "
                 "--line-numbers --table= --wait= -s= -d= -p= -i= -o= -j= -m= --source= --destination= "
                 "--protocol= --in-interface= --out-interface= --jump= --match= --dport= --sport= -V --version",
                 judge=judges.iptables)
_PSQL = rule(
    "-h= -p= -U= -d= -c= -v= -P= -F= -R= -t -A -X -q -w -x -l -V -a -b -e -E -n -0 -z -1 --csv --html "
    "--host= --port= --username= --dbname= --command= --set= --variable= --pset= --field-separator= "
    "--record-separator= --tuples-only --no-align --no-psqlrc --quiet --no-password --expanded --list --version "
    "--echo-all --echo-errors --echo-queries --echo-hidden --no-readline --field-separator-zero "
    "--record-separator-zero --single-transaction", judge=judges.psql, patterns=False)
_MYSQL = rule(
    "-h= -P= -u= -D= -e= -S= -B -N -s -t -E -r -n -q -V --batch --skip-column-names --silent --table --vertical "
    "--raw --unbuffered --quick --version --host= --port= --user= --database= --execute= --socket= --protocol= "
    "--connect-timeout= --default-character-set= --ssl-mode= --ssl-ca= --ssl-cert= --ssl-key= --column-names "
    "--no-auto-rehash --skip-ssl --ssl --password[=] -p[=]", judge=judges.mysql, patterns=False)
_MYSQLADMIN = rule(
    "-h= -P= -u= -S= -i= -c= -s -v -V --host= --port= --user= --socket= --sleep= --count= --silent --verbose "
    "--version --protocol= --connect-timeout= --password[=] -p[=]", judge=judges.mysqladmin, patterns=False)
_SQLITE3 = rule(
    "-readonly -json -csv -column -header -noheader -line -list -box -table -markdown -html -quote -tabs -bail "
    "-batch -echo -safe -version -nofollow -separator= -newline= -nullvalue= -cmd=", whole=True,
    judge=judges.sqlite3, patterns=False)
_REDIS = rule(
    "-c -e -x --raw --no-raw --csv --json --quoted-json --tls --insecure --no-auth-warning -2 -3 --scan --bigkeys "
    "--memkeys --hotkeys --stat --latency --latency-history --latency-dist -v --version -h= -p= -a= -n= -s= -u= "
    "-r= -i= --user= --pass= --askpass --sni= --cacert= --cacertdir= --cert= --key= --pattern= --quoted-pattern= "
    "--count= --intrinsic-latency= --cluster= --memkeys-samples= --keystats --keystats-samples=",
    permute=False, judge=judges.redis_cli, patterns=False)
_AWK = rule("-F= -v= --field-separator= --assign= --posix --traditional --re-interval --characters-as-bytes "
            "--sandbox -b -c -P -S -r", permute=False, judge=judges.awk, patterns=True)
_SED = rule("-n -E -r -s -u -z -e= -l= --quiet --silent --regexp-extended --posix --debug --sandbox --separate "
            "--unbuffered --null-data --expression= --line-length=", judge=judges.sed, patterns=True)
_FIND = Rule(raw=True, judge=judges.find, patterns=False)
_PYTHON = Rule(raw=True, judge=judges.json_tool, patterns=False)

BUILT_IN: dict[str, Rule] = {
    # files and text
    "cat": rule("-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number --squeeze-blank --show-ends "
                "--show-tabs --show-nonprinting"),
    "head": _HEAD_TAIL, "tail": _HEAD_TAIL,
    "grep": _GREP, "egrep": _GREP, "fgrep": _GREP, "zgrep": _GREP,
    "zcat": rule("-f -q -v --force --quiet --verbose"), "xzcat": rule("-q -v --quiet --verbose"),
    "bzcat": rule("-q -v -s --quiet --verbose --small"),
    "wc": rule("-c -l -w -m -L --bytes --lines --words --chars --max-line-length"),
    "sort": _SORT,
    "uniq": rule("-c -d -D -u -i -z -f= -s= -w= --count --repeated --unique --ignore-case --zero-terminated "
                 "--skip-fields= --skip-chars= --check-chars= --all-repeated[=] --group[=]", operands=1),
    "cut": rule("-b= -c= -d= -f= -s -z -n --bytes= --characters= --delimiter= --fields= --complement "
                "--only-delimited --output-delimiter= --zero-terminated"),
    "tr": rule("-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1", operands=2, patterns=False),
    "column": rule("-t -x -n -e -c= -s= -o= -N= -R= -H= -T= -W= --table --separator= --output-separator= "
                   "--table-columns= --table-right="),
    "nl": rule("-b= -n= -w= -s= -v= -i= --body-numbering= --number-format= --number-width= --number-separator="),
    "tac": rule("-b -r -s= --before --regex --separator="), "rev": rule(),
    "paste": rule("-s -z -d= --serial --zero-terminated --delimiters="),
    "comm": rule("-1 -2 -3 -i -z --check-order --nocheck-order --output-delimiter= --total --zero-terminated"),
    "diff": rule("-q -s -u -c -y -r -N -i -w -b -B -a -t -U= -C= -W= --brief --report-identical-files --unified[=] "
                 "--context[=] --side-by-side --recursive --new-file --ignore-case --ignore-all-space "
                 "--ignore-space-change --ignore-blank-lines --text --expand-tabs --color[=] --normal --exclude= "
                 "--label= --width= --suppress-common-lines --no-dereference --strip-trailing-cr"),
    "cmp": rule("-b -l -s --print-bytes --verbose --quiet --silent -i= -n= --ignore-initial= --bytes="),
    "jq": rule("-r -j -a -c -C -M -S -e -s -n -R --raw-output --join-output --ascii-output --compact-output "
               "--color-output --monochrome-output --sort-keys --exit-status --slurp --null-input --raw-input --tab "
               "--indent= --arg= --argjson= -f= --from-file= --seq --stream"),
    "awk": _AWK, "gawk": _AWK, "mawk": _AWK, "nawk": _AWK,
    "sed": _SED,
    "ls": rule("-a -A -l -h -t -r -S -1 -d -i -R -n -g -o -F -p -L -H -c -u -U -X -v -Q -b -B -C -m -x -G -Z -k -s "
               "-N -q --all --almost-all --human-readable --si --full-time --group-directories-first --inode "
               "--recursive --directory --reverse --size --numeric-uid-gid --literal --dereference --author "
               "--classify[=] --file-type --sort= --time= --time-style= --color[=] --quoting-style= --block-size= "
               "--ignore= -I= --hide= -w= --width= --format= --indicator-style= -T= --tabsize= --hyperlink[=] "
               "--context --escape --ignore-backups --no-group --show-control-chars --hide-control-chars"),
    "stat": rule("-L -f -t -c= --dereference --file-system --terse --format= --printf= --cached="),
    "file": rule("-b -i -L -h -k -s -z -N -E -0 -r --brief --mime --mime-type --mime-encoding --dereference "
                 "--no-dereference --keep-going --special-files --uncompress --no-pad --print0 --raw -m= -F= "
                 "--magic-file= --separator= -e= --exclude="),
    "du": rule("-a -b -c -h -k -m -s -x -L -P -S -l -0 -D -H --all --apparent-size --bytes --total "
               "--human-readable --si --summarize --one-file-system --dereference --no-dereference --separate-dirs "
               "--count-links --null --inodes -d= --max-depth= --exclude= -t= --threshold= -B= --block-size= "
               "--time[=] --time-style="),
    "df": rule("-a -h -H -i -k -l -P -T -v --all --human-readable --si --inodes --local --portability --print-type "
               "--total --sync --no-sync -t= -x= -B= --type= --exclude-type= --block-size= --output[=]"),
    "find": _FIND,
    "readlink": rule("-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing "
                     "--no-newline --quiet --silent --verbose --zero"),
    "realpath": rule("-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical "
                     "--quiet --strip --no-symlinks --zero --relative-to= --relative-base="),
    "basename": rule("-a -s= -z --multiple --suffix= --zero"), "dirname": rule("-z --zero"),
    "md5sum": rule("-b -c -t -z --binary --check --text --quiet --status --strict --warn --zero --tag"),
    "sha256sum": rule("-b -c -t -z --binary --check --text --quiet --status --strict --warn --zero --tag"),
    "sha1sum": rule("-b -c -t -z --binary --check --text --quiet --status --strict --warn --zero --tag"),
    "strings": rule("-a -n= -t= -e= --all --bytes= --radix= --encoding="),
    "od": rule("-A= -t= -N= -j= -w[=] -c -x -v --address-radix= --format= --read-bytes= --skip-bytes="),
    "python3": _PYTHON, "python": _PYTHON,
    # the shell's own
    "echo": ANYTHING, "printf": Rule(raw=True, judge=judges.printf), "true": ANYTHING, "false": ANYTHING,
    ":": ANYTHING, "test": ANYTHING, "sleep": rule(patterns=False), "pwd": rule("-L -P", operands=0),
    "cd": rule("-L -P", operands=1, patterns=False), "type": rule("-a -f -p -P -t"), "which": rule("-a -s"),
    "command": rule("-v -V", judge=judges.command_lookup, patterns=False),
    # the host
    "uptime": rule("-p -s --pretty --since"), "free": rule(
        "-b -k -m -g -h -t -w -l -v --bytes --kilo --mega --giga --tera --kibi --mebi --gibi --tebi --human --si "
        "--total --wide --lohi --committed -s= -c= --seconds= --count="),
    "uname": rule("-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version "
                  "--machine --processor --hardware-platform --operating-system"),
    "hostname": rule("-f -i -I -s -d -A -a -y --fqdn --long --ip-address --all-ip-addresses --short --domain "
                     "--all-fqdns --alias", operands=0),
    "date": rule("-u -R -d= -r= --date= --reference= --utc --universal --rfc-email --rfc-3339= -I[=] "
                 "--iso-8601[=]", judge=judges.date),
    "whoami": rule(operands=0), "id": rule("-u -g -G -n -r -z --user --group --groups --name --real --zero"),
    "groups": rule(), "who": rule("-a -b -d -H -l -q -r -s -u -T --all --boot --heading --count --runlevel"),
    "w": rule("-h -s -i -f -o -u --no-header --short --ip-addr --from --old-style --no-current"),
    "last": rule("-n= -a -F -i -w -x --limit= --since= --until= --time-format= --fullnames --ip --system"),
    "nproc": rule("--all --ignore="), "lscpu": rule("-e[=] -p[=] -J -x -y -b -a -c --extended[=] --parse[=] --json "
                                                     "--hex --physical --all --online --offline"),
    "lsblk": rule("-a -b -d -f -J -l -m -n -o= -p -P -r -S -t -O -e= -I= -x= --all --bytes --nodeps --fs --json "
                  "--list --perms --noheadings --output= --output-all --paths --pairs --raw --scsi --topology "
                  "--exclude= --include= --sort= --tree[=]"),
    "findmnt": rule("-a -A -b -D -f -J -l -n -o= -r -t= -T= -S= -s -m -k -v -u -e -c -P -O= -U -R -D --all --ascii "
                    "--bytes --df --first-only --json --list --noheadings --output= --raw --types= --target= "
                    "--source= --fstab --mtab --kernel[=] --pairs --real --pseudo --submounts --options="),
    "mount": rule("-l -t= --types= --show-labels", operands=0),
    "ps": ANYTHING, "pgrep": rule("-l -a -c -f -i -n -o -v -w -x -u= -U= -g= -G= -P= -s= -t= --list-name "
                                  "--list-full --count --full --ignore-case --newest --oldest --inverse --lightweight "
                                  "--exact --euid= --uid= --pgroup= --group= --parent= --session= --terminal= "
                                  "--older= --ns= --nslist="),
    "pidof": rule("-s -c -n -x -z -q -o= -S= -w"),
    "top": rule("-b -c -H -i -S -1 -e= -E= -n= -d= -o= -p= -u= -U= -w[=] -O", operands=0),
    "vmstat": rule("-a -f -m -n -s -d -D -t -w -S= -p= --active --forks --slabs --one-header --stats --disk "
                   "--disk-sum --timestamp --wide --unit= --partition="),
    "iostat": rule("-c -d -h -k -m -N -s -t -x -y -z -j= -o= -p[=] --human --compact --pretty"),
    "lsof": ANYTHING, "sensors": rule("-A -u -f -j --no-adapter --fahrenheit"),
    "dmesg": rule("-T -H -k -u -x -t -r -P -L[=] -l= -f= -S --ctime --human --kernel --userspace --decode --notime "
                  "--raw --nopager --color[=] --level= --facility= --syslog --since= --until= --time-format= "
                  "--show-delta -d"),
    "smartctl": rule("-a -x -H -i -A -c -j -l= -d= -q= --all --xall --health --info --attributes --capabilities "
                     "--json[=] --log= --device= --quietmode= --scan --scan-open", judge=judges.smartctl,
                     patterns=False),
    "crontab": rule("-l -u=", operands=0, judge=judges.crontab),
    # services and containers
    "systemctl": _SYSTEMCTL, "journalctl": _JOURNALCTL,
    "service": rule("--status-all", judge=judges.service, patterns=False),
    "timedatectl": rule("-a -p= --all --value --no-pager --property=", bare=True, subcommands={
        "status": rule(), "show": rule(), "timesync-status": rule(), "show-timesync": rule()}),
    "hostnamectl": rule("--static --transient --pretty --json=", bare=True,
                        subcommands={"status": rule()}),
    "resolvectl": rule("-4 -6 -i= -p= -t= -c= --legend= --no-pager --json=", bare=True,
                       subcommands={"status": rule(), "query": rule(), "statistics": rule()}),
    "docker": _DOCKER, "podman": _DOCKER, "docker-compose": _COMPOSE, "podman-compose": _COMPOSE,
    "kubectl": _KUBECTL, "git": _GIT,
    # the network
    "curl": _CURL, "wget": _WGET,
    "dig": ANYTHING, "host": ANYTHING, "getent": ANYTHING, "whois": ANYTHING,
    "nslookup": Rule(raw=True, judge=judges.operand_required),
    "traceroute": ANYTHING, "tracepath": ANYTHING, "mtr": rule(
        "-r -w -b -n -4 -6 -z -j -C -x --report --report-wide --show-ips --no-dns --aslookup --json --csv --xml "
        "-c= --report-cycles= -i= --interval= -s= --psize= -T --tcp -u --udp -P= --port= -m= --max-ttl="),
    "ping": rule("-c= -W= -w= -i= -s= -t= -I= -q -n -4 -6 -D -O -v -a -A -U", patterns=False),
    "ping6": rule("-c= -W= -w= -i= -s= -t= -I= -q -n -D -O -v -a -A -U", patterns=False),
    "nc": rule("-z -v -n -u -4 -6 -w= -W= -q=", judge=judges.netcat, patterns=False),
    "ss": rule("-t -u -l -n -p -a -x -w -4 -6 -s -o -e -m -i -r -H -O -0 -d -S -E -Z -z -b -M -T -y -A= -f= -N= "
               "--tcp --udp --listening --numeric --processes --all --unix --raw --summary --options --extended "
               "--memory --info --resolve --no-header --oneline --dccp --sctp --context --contexts --threads --tos "
               "--cgroup --bpf-maps --query= --family= --net="),
    "netstat": rule("-t -u -l -n -p -a -x -w -s -r -i -e -c -W -4 -6 -g -M -o --tcp --udp --listening --numeric "
                    "--program --all --statistics --route --interfaces --extend --wide --groups --timers"),
    "ip": _IP,
    "iptables": _IPTABLES, "ip6tables": _IPTABLES, "iptables-legacy": _IPTABLES, "iptables-nft": _IPTABLES,
    "nft": rule("-a -n -N -s -j -y -t -T -S -u --handle --numeric --stateless --json --terse --numeric-time "
                "--numeric-protocol --service", permute=False, judge=judges.nft, patterns=False),
    "ufw": rule(permute=False, subcommands={"status": rule(operands=1)}),
    "wg": rule(permute=False, subcommands={"show": rule(judge=judges.wg_show)}),
    "tailscale": rule(permute=False, subcommands={name: rule("--json --peers --self --active -1 -4 -6")
                                                  for name in ("status", "ip", "version", "netcheck")}),
    "openssl": _OPENSSL,
    "ssh": _SSH,
    # databases
    "pg_isready": rule("-h= -p= -U= -d= -t= -q --host= --port= --username= --dbname= --timeout= --quiet",
                       operands=0),
    "psql": _PSQL, "mysql": _MYSQL, "mariadb": _MYSQL, "mysqladmin": _MYSQLADMIN, "mariadb-admin": _MYSQLADMIN,
    "sqlite3": _SQLITE3, "redis-cli": _REDIS,
    "mongosh": rule("--quiet --nodb --norc --tls --version --eval= --host= --port= -u= --username= "
                    "--authenticationDatabase= --authenticationMechanism= --tlsCAFile=", operands=1,
                    judge=judges.mongosh, patterns=False),
    # packages (listing only)
    "dpkg-query": rule("-l -L -s -S -W -f= --list --listfiles --status --search --show --showformat="),
    "dpkg": rule("-l -L -s -S --list --listfiles --status --search", judge=judges.dpkg),
    "apt-cache": rule("-n -q --names-only --installed --no-all-versions --quiet", permute=False, subcommands={
        name: rule() for name in ("policy", "show", "search", "depends", "rdepends", "madison", "showpkg")}),
    # wrappers the gate follows
    "sudo": rule("-n -H -u= -g= --non-interactive --set-home --user= --group=", permute=False,
                 runs=judges.runs_operands),
    "timeout": rule("-v -s= -k= --verbose --foreground --preserve-status --signal= --kill-after=", permute=False,
                    runs=judges.runs_after_duration),
    "nice": rule("-n= --adjustment= -NUM", permute=False, runs=judges.runs_operands),
    "sh": _SHELL, "bash": _SHELL, "dash": _SHELL,
}
"""The built-in allow-list. Programs with a path are looked up by their name when the path is a system
directory (:data:`SYSTEM_DIRECTORIES`); anything else run by a path is a script the gate cannot see."""


SYSTEM_DIRECTORIES = frozenset({"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"})

ALLOWED_ASSIGNMENTS = frozenset({"LC_ALL", "LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "TERM",
                                 "SYSTEMD_COLORS", "PGCONNECT_TIMEOUT"})
"""``NAME=value`` prefixes a read-only command may carry: locale, time zone and display only. Any other
variable can change what a program runs (``LD_PRELOAD``, ``PATH``, ``GIT_SSH_COMMAND``, ``PAGER``)."""

RUNS_OTHER_PROGRAMS = frozenset({
    "sh", "bash", "dash", "zsh", "ksh", "fish", "csh", "tcsh", "busybox", "env", "xargs", "eval", "exec", "sudo",
    "su", "doas", "runuser", "chroot", "nsenter", "unshare", "flock", "setsid", "nohup", "nice", "ionice", "stdbuf",
    "timeout", "watch", "script", "tmux", "screen", "at", "batch", "parallel", "systemd-run", "strace", "ltrace",
    "gdb", "expect", "find", "ssh", "python", "python3", "perl", "ruby", "node", "php", "lua", "tclsh", "awk",
    "gawk", "mawk", "nawk", "sed", "make", "time", "command", "builtin", "source", ".", "vi", "vim", "less", "more",
    "man", "openssl", "psql", "mysql", "mariadb", "sqlite3", "redis-cli", "mongosh"})
"""Programs a ``[toolgate] allow`` entry may not name: each runs other commands or code given to it, so an
entry would let through what the gate does not see. The ones the gate follows (``sudo``, ``ssh``, ``docker
exec``, ``sh -c``, ``find -exec``…) are judged by their built-in rules, which an entry cannot widen."""

RUNS_OTHER_COMMANDS: dict[str, frozenset[tuple[str, ...]]] = {
    **dict.fromkeys(("docker", "podman"), frozenset({
        ("run",), ("exec",), ("create",), ("build",), ("buildx",), ("builder", "build"), ("image", "build"),
        ("plugin",), ("debug",), ("container", "run"), ("container", "exec"), ("container", "create"),
        ("compose", "run"), ("compose", "exec"), ("compose", "create"), ("compose", "up"), ("compose", "build"),
        ("compose", "watch")})),
    **dict.fromkeys(("docker-compose", "podman-compose"), frozenset({
        ("run",), ("exec",), ("create",), ("up",), ("build",), ("watch",)})),
    "kubectl": frozenset({("exec",), ("run",), ("debug",), ("attach",), ("cp",), ("plugin",), ("edit",)}),
    "git": frozenset({("submodule",), ("bisect",), ("rebase",), ("filter-branch",), ("difftool",),
                      ("mergetool",), ("send-email",), ("daemon",), ("instaweb",), ("archive",), ("fetch",),
                      ("pull",), ("clone",), ("ls-remote",), ("push",), ("grep",), ("config",)}),
}
"""Sub-command paths of the programs the gate knows that run a command given on their command line
(``docker exec``, ``kubectl exec``, ``git bisect run``, ``git rebase --exec``, ``git fetch
--upload-pack``, ``git grep -O``, an editor for ``kubectl edit``), a container or a build from what
they are given (``docker run``, ``docker build``), or install a command other calls run (``git
config core.pager``): an entry may not name them, for the same reason as :data:`RUNS_OTHER_PROGRAMS`.
The forms the gate follows (``docker exec CONTAINER CMD``) stay judged by their built-in rules."""

RUNS_OTHER_OPTIONS: dict[str, frozenset[str]] = {
    "git": frozenset({"-c", "--config-env", "--exec-path"}),
    "curl": frozenset({"-K", "--config"}),
    "wget": frozenset({"-e", "--execute", "--config"}),
}
"""Options of a program itself (before any sub-command) that run commands (``git -c alias.x='!cmd'``,
``git -c core.pager=cmd``) or read more options from a file or a setting (``curl -K FILE``, ``wget -e``)."""

_CHANGING_EXAMPLE = {"ufw": "disable", "wg": "set wg0 …", "tailscale": "down", "apt-cache": "gencaches",
                     "ip": "link set eth0 down", "date": "0101000020", "curl": "gopher://…",
                     "wget": "http://…/backup.tar", "nft": "flush ruleset", "crontab": "FILE"}
"""What a program named alone in an entry would let through, for the refusal's message."""

ENTRY_SYNTAX = ('entries like "program", "program subcommand", "program subcommand -o --long --value=" '
                'or "program subcommand *"')
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_OPTION = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_.-]*=?")


@dataclass(frozen=True)
class Entry:
    """One ``[toolgate] allow`` entry: a program and sub-commands, and what may follow them."""

    words: tuple[str, ...]
    """The program and its sub-commands, which must open the command exactly (``zpool status``)."""
    rule: Rule
    text: str


def parse_entry(text: str) -> Entry:
    """An entry as written in ``[toolgate] allow``; ``ValueError`` with the syntax otherwise.

    ``"zpool status"`` allows ``zpool status`` with operands but no options; ``"zpool status -v -x"``
    also those options (``-n=`` one that takes a value); a final ``*`` allows any further words,
    options included, unchecked: the entry then trusts the program entirely.
    """
    words = text.split()
    if not words:
        raise ValueError("an entry is empty")
    names: list[str] = []
    options: list[str] = []
    anything = False
    for index, word in enumerate(words):
        if word == "*" and index == len(words) - 1 and index > 0:
            anything = True
        elif not options and _NAME.fullmatch(word):
            names.append(word)
        elif names and _OPTION.fullmatch(word):
            options.append(word)
        else:
            raise ValueError(f"{word!r} is not a program, sub-command or option")
    _refuse_runners(names, options, anything)
    whole = any(not option.startswith("--") and len(option.rstrip("=")) > 2 for option in options)
    entry_rule = ANYTHING if anything else replace(rule(" ".join(options)), whole=whole)
    return Entry(tuple(names), entry_rule, text)


def _refuse_runners(names: list[str], options: list[str], anything: bool) -> None:
    """``ValueError`` when an entry would let through a command that runs other commands.

    Deny by default for the programs the gate knows (:data:`BUILT_IN`): their built-in rules
    already list what only reads, so an entry may add sub-commands and options to them but never
    ``*``, which would hide the options that write or run something (``git -c``, ``curl --output-dir``,
    ``docker run -v /:/h``); and it may not name a sub-command or option known to run other commands,
    nor stop short of one: the words after an entry's names are free operands, so ``"docker"`` alone
    would allow ``docker compose run web CMD``; so would any program whose sub-commands or operands the
    gate checks itself (``"systemctl"`` alone opens ``systemctl restart x``, ``"ip"`` ``ip link set``,
    ``"curl"`` a ``gopher://`` URL): such a program is named with a sub-command.
    """
    program = names[0]
    if program in RUNS_OTHER_PROGRAMS:
        raise ValueError(f"{program} runs other commands, so it cannot be allowed by an entry")
    named = tuple(names[1:])
    paths = sorted(RUNS_OTHER_COMMANDS.get(program, ()))
    for path in paths:
        if named[:len(path)] == path:
            raise ValueError(f"{program} {' '.join(path)} runs other commands, so it cannot be allowed by an entry")
    if not named:
        for option in options:
            if option.rstrip("=") in RUNS_OTHER_OPTIONS.get(program, ()):
                raise ValueError(f"{program} {option.rstrip('=')} runs other commands or reads options from "
                                 "elsewhere, so it cannot be allowed by an entry")
    if anything and program in BUILT_IN:
        raise ValueError(f"{program} is judged by its built-in rules, which know its options that write or run "
                         "commands; list the options it allows instead of *")
    for path in paths:
        if path[:len(named)] == named:  # the entry's free operands would take the rest of the path
            raise ValueError(f"{' '.join(names)} would also allow {program} {' '.join(path)}, which runs other "
                             "commands; name a sub-command that does not")
    known = BUILT_IN.get(program)
    if not named and known is not None and (known.subcommands, known.judge, known.runs) != (None, None, None):
        raise ValueError(f"{program} alone would take any operands past the gate's own check of them "
                         f"({program} {_CHANGING_EXAMPLE.get(program, 'restart x')}); name the sub-command the "
                         "entry allows")


READ_ONLY_TOOLS = frozenset({
    "Read", "Grep", "Glob", "LS", "NotebookRead", "WebFetch", "WebSearch", "ToolSearch",
    "TodoWrite", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate",
    "BashOutput", "TaskOutput", "KillShell", "KillBash", "TaskStop",
    "ListMcpResourcesTool", "ReadMcpResourceTool"})
"""The Claude Code tools besides ``Bash`` that tier 1 and dry runs may call: they read files, the web
(a GET, like ``curl``) or MCP resources, keep the session's own to-do list, or read and stop the
output of the session's own background commands (which the gate judged when they started). Every
other tool is refused: ``Write``, ``Edit``…, ``Agent``/``Task`` (a sub-agent), ``Monitor`` and
``PowerShell`` (they run commands), ``CronCreate``, every ``mcp__…`` tool, and any tool a later
Claude Code adds. The operator names more in ``[toolgate] read_only_tools``."""

WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
"""The Claude Code tools that write files: refused in read-only modes, and never nameable as read-only."""

NEVER_READ_ONLY_TOOLS = {"Bash": "Bash is judged command by command by the gate itself",
                         **dict.fromkeys(sorted(WRITING_TOOLS), "it changes files")}
"""Tools ``[toolgate] read_only_tools`` may not name, and why."""

_TOOL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def parse_tool(name: str) -> str:
    """A ``[toolgate] read_only_tools`` name as written; ``ValueError`` saying why it cannot be one.

    Exact names only (``mcp__grafana__query``): a pattern would let a tool added to the server
    later through unseen.
    """
    if not _TOOL_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a tool name (letters, digits, _ and -; no patterns)")
    if name in NEVER_READ_ONLY_TOOLS:
        raise ValueError(f"{name} cannot be listed: {NEVER_READ_ONLY_TOOLS[name]}")
    return name


@dataclass(frozen=True)
class AllowList:
    """The built-in rules and the operator's entries; the tools other than Bash that only read."""

    rules: Mapping[str, Rule]
    entries: Mapping[str, tuple[Entry, ...]]
    tools: frozenset[str] = READ_ONLY_TOOLS

    def extended(self, more: Iterable[Entry], tools: Iterable[str] = ()) -> AllowList:
        """This list with more entries (made by :func:`parse_entry`) and tools (checked by :func:`parse_tool`)."""
        entries = {name: list(found) for name, found in self.entries.items()}
        for entry in more:
            entries.setdefault(entry.words[0], []).append(entry)
        return AllowList(self.rules, {name: tuple(found) for name, found in entries.items()},
                         self.tools.union(tools))


BUILT_IN_LIST = AllowList(BUILT_IN, {})


