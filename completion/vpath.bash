# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# bash completion for vpath-record, vpath-analyze and vpath-clickhouse.
# Installed as .../bash-completion/completions/vpath-analyze with the other
# two names links to it: bash-completion loads it by any of them.
# Self-contained (plain compgen), so it works without bash-completion too.
# The option lists are those of --help: tests/integration/test_completion.sh
# fails when they differ.

_vpath_record_opts='--duration --output --cgroup --go-binary --netns --port --pid --group --host
	--no-wakeups --ring --segment-size --wakeups --capture --capture-hash --capture-pid --capture-port --logs
	--ringbuf-size --verbose --help --usage --version'
_vpath_analyze_cmds='paths show table patterns dot dump local calls otlp sqlite report baseline'
# Each command's options, as `vpath-analyze COMMAND --help` lists them.
_vpath_analyze_every='--help --version'
_vpath_analyze_requests='--request --from --to --entry'
_vpath_analyze_tuning='--window --reorder --threads --pairs --no-frames --verbose'
_vpath_analyze_analysis="--slowest $_vpath_analyze_requests $_vpath_analyze_tuning $_vpath_analyze_every"
_vpath_clickhouse_cmds='schema load pair drop'
_vpath_clickhouse_opts='--client --cluster --help'

# _vpath_files GLOB: files matching GLOB and directories to descend into.
_vpath_files()
{
	local IFS=$'\n' f
	compopt -o filenames 2>/dev/null
	COMPREPLY=()
	for f in $(compgen -f -- "$cur"); do
		# shellcheck disable=SC2053 # $1 is a pattern
		if [[ -d $f || $f == $1 ]]; then
			COMPREPLY+=("$f")
		fi
	done
}

# cur and prev, also for --option=value (bash splits words at '=').
_vpath_init()
{
	cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [ "$cur" = = ]; then
		cur=
	elif [ "$prev" = = ] && [ "$COMP_CWORD" -ge 2 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
}

# _vpath_words WORDS: the words of WORDS that start with the current word.
_vpath_words()
{
	local IFS=$' \t\n'
	# shellcheck disable=SC2207 # compgen prints one word a line
	COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

_vpath_record()
{
	local cur prev

	_vpath_init
	case $prev in
	-o | --output | --go-binary)
		_vpath_files '*'
		return
		;;
	--cgroup)
		compopt -o filenames 2>/dev/null
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -d -- "${cur:-/sys/fs/cgroup/}"))
		return
		;;
	--netns)
		_vpath_words "$(ls /run/netns 2>/dev/null)"
		return
		;;
	-p | --pid | --capture-pid)
		_vpath_words "$(cd /proc && ls -d [0-9]* 2>/dev/null)"
		return
		;;
	--group)
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -g -- "$cur"))
		return
		;;
	-d | --duration | --port | --host | --ring | --segment-size | --capture | --capture-hash | --capture-port | \
		--logs | --ringbuf-size)
		COMPREPLY=() # a value of the user's own
		return
		;;
	esac
	_vpath_words "$_vpath_record_opts"
}

_vpath_analyze()
{
	local cur prev cmd=${COMP_WORDS[1]}

	_vpath_init
	if [ "$COMP_CWORD" -eq 1 ]; then
		_vpath_words "$_vpath_analyze_cmds --help --version"
		return
	fi
	case $prev in
	-o | --output)
		_vpath_files '*'
		return
		;;
	--pairs)
		_vpath_files '*'
		return
		;;
	-n | --slowest | -r | --request | -p | --pattern | --from | --to | -e | --entry | -w | \
		--window | --reorder | --threads | --endpoint | --quantum | --max-lag)
		COMPREPLY=()
		return
		;;
	esac
	case $cur in
	-*)
		case $cmd in
		paths | show) _vpath_words "--json --logs $_vpath_analyze_analysis" ;;
		table) _vpath_words "--csv $_vpath_analyze_analysis" ;;
		patterns) _vpath_words "$_vpath_analyze_analysis" ;;
		dot) _vpath_words "--pattern $_vpath_analyze_analysis" ;;
		otlp) _vpath_words "--output --endpoint $_vpath_analyze_analysis" ;;
		sqlite) _vpath_words "--output $_vpath_analyze_analysis" ;;
		report)
			_vpath_words "--output --slowest $_vpath_analyze_requests $_vpath_analyze_tuning \
				$_vpath_analyze_every"
			;;
		baseline)
			_vpath_words "--json --nesting --convolution --quantum --max-lag \
				$_vpath_analyze_analysis"
			;;
		local) _vpath_words "--output --verbose $_vpath_analyze_every" ;;
		*) _vpath_words "$_vpath_analyze_every" ;;
		esac
		return
		;;
	esac
	# Recordings (.vpr), ring segments (FILE.NNN) and local files (.vpl);
	# calls reads local files only, local writes one from recordings.
	case $cmd in
	calls) _vpath_files '*.vpl' ;;
	local) _vpath_files '@(*.vpr|*.[0-9][0-9][0-9])' ;;
	*) _vpath_files '@(*.vpr|*.vpl|*.[0-9][0-9][0-9])' ;;
	esac
}

_vpath_clickhouse()
{
	local cur prev i cmd=

	_vpath_init
	# The command is the first word after the options (and their values).
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--client | --cluster) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]} && break ;;
		esac
	done
	case $prev in
	--client | --cluster)
		COMPREPLY=()
		return
		;;
	-o)
		_vpath_files '*'
		return
		;;
	esac
	case $cmd in
	'') _vpath_words "$_vpath_clickhouse_cmds $_vpath_clickhouse_opts" ;;
	load) _vpath_files '*.vpl' ;;
	pair) _vpath_words -o ;;
	*) COMPREPLY=() ;;
	esac
}

complete -F _vpath_record vpath-record
complete -F _vpath_analyze vpath-analyze
complete -F _vpath_clickhouse vpath-clickhouse
