# gpuwatch.bash - bash completion for gpuwatch (installed as share/bash-completion/completions/gpuwatch).
# Nothing here is a copy of gpuwatch's names: commands, options, subcommands, the values an option
# takes, fields, scenarios and -q sections come from the program (gpuwatch --complete ...), which
# reads them from the tables its commands parse with.

# The words of a list: gpuwatch --complete WHAT [CMD], one a line.
_gpuwatch_list()
{
    "$_gpuwatch_prog" --complete "$@" 2>/dev/null
}

# The options of CMD [SUB] (before a command: the global ones and nvidia-smi's), and its subcommands.
_gpuwatch_options()
{
    _gpuwatch_list options "${1:--}" ${2:+"$2"} | grep -- '^-'
}

# Completes the last element of a comma separated value ($1) against words ($2).
_gpuwatch_comma_list()
{
    local value=$1 head="" word
    [[ $value == *,* ]] && head=${value%,*},
    word=${value##*,}
    COMPREPLY=($(compgen -P "$head" -W "$2" -- "$word"))
    compopt -o nospace 2>/dev/null
}

_gpuwatch()
{
    _gpuwatch_prog=${COMP_WORDS[0]}
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local opt="" value=$cur cmd="" sub="" smi="" i=1
    COMPREPLY=()

    # the command: the first word after the global options (--sim takes a value); an option there
    # starts nvidia-smi's form
    while ((i < COMP_CWORD)); do
        case ${COMP_WORDS[i]} in
        --sim) ((i += 2)) ;;
        --sim=*) ((i += 1)) ;;
        =) ((i += 1)) ;;
        -*) smi=1; break ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    # a subcommand: the word after the command, when it is no option (history export, rules check)
    if [[ -n $cmd ]] && ((i + 1 < COMP_CWORD)) && [[ ${COMP_WORDS[i + 1]} != -* ]]; then
        sub=${COMP_WORDS[i + 1]}
    fi

    # the option whose value is being typed: "--opt value", "--opt=value" (bash splits at '=')
    if [[ $cur == = ]]; then
        opt=$prev value=""
    elif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
        opt=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $prev == -* && $cur != -* ]]; then
        opt=$prev
    fi

    case $opt in
    --sim)
        COMPREPLY=($(compgen -W "$(_gpuwatch_list scenarios)" -- "$value") $(compgen -f -X '!*.yaml' -- "$value"))
        return ;;
    --fields | --query-gpu | --metric | --metrics)
        _gpuwatch_comma_list "$value" "$(_gpuwatch_list fields)"
        return ;;
    --query-compute-apps)
        _gpuwatch_comma_list "$value" "$(_gpuwatch_list apps-fields)"
        return ;;
    -d | --display)
        if [[ -n $smi ]]; then
            _gpuwatch_comma_list "$value" "$(_gpuwatch_list sections)"
            return
        fi ;;
    esac
    # the words a choice takes (--format, --agg, --layout, ...), or files for an option naming one
    if [[ -n $opt ]]; then
        local words
        words=$(_gpuwatch_list values "${cmd:--}" ${sub:+"$sub"} "$opt")
        if [[ -n $words ]]; then
            COMPREPLY=($(compgen -W "$words" -- "$value"))
            return
        fi
        if _gpuwatch_list files "${cmd:--}" ${sub:+"$sub"} | grep -qx -- "$opt"; then
            COMPREPLY=($(compgen -f -- "$value"))
            return
        fi
    fi

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gpuwatch_options "$cmd" "$sub")" -- "$cur"))
        [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
        return
    fi
    if [[ -z $cmd && -z $smi ]]; then
        COMPREPLY=($(compgen -W "$(_gpuwatch_list commands)" -- "$cur"))
        return
    fi
    # subcommands (rules check, history export, ...): the words of its list that are no option
    if [[ -n $cmd && $prev == "$cmd" ]]; then
        local subs
        subs=$(_gpuwatch_list options "$cmd" | grep -v -- '^-')
        [[ -n $subs ]] && COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    fi
    [[ ${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
}

complete -F _gpuwatch gpuwatch
