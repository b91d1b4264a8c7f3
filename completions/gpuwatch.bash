# gpuwatch.bash - bash completion for gpuwatch (installed as share/bash-completion/completions/gpuwatch).
# Nothing here is a copy of gpuwatch's names: commands, fields, scenarios, -q sections and formats
# come from the program (gpuwatch --complete ...), options and subcommands from its --help.

# The words of a list: gpuwatch --complete WHAT [CMD], one a line.
_gpuwatch_list()
{
    "$_gpuwatch_prog" --complete "$@" 2>/dev/null
}

# The options gpuwatch [CMD] --help mentions.
_gpuwatch_options()
{
    "$_gpuwatch_prog" ${1:+"$1"} --help 2>/dev/null |
        grep -oE -- '(^|[][ ,|(])--?[A-Za-z][-A-Za-z0-9.]*' | sed -E 's/^[][ ,|(]//' | sort -u
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
    local opt="" value=$cur cmd="" smi="" i=1
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
    --fields | --query-gpu | --metric)
        _gpuwatch_comma_list "$value" "$(_gpuwatch_list fields)"
        return ;;
    --query-compute-apps)
        _gpuwatch_comma_list "$value" "$(_gpuwatch_list apps-fields)"
        return ;;
    --format)
        COMPREPLY=($(compgen -W "$(_gpuwatch_list formats $cmd)" -- "$value"))
        return ;;
    -d | --display)
        if [[ -n $smi ]]; then
            _gpuwatch_comma_list "$value" "$(_gpuwatch_list sections)"
            return
        fi ;;
    -f | --filename | --config | --db | --out | --port-file | --password-file | --cacert | --web.config.file)
        COMPREPLY=($(compgen -f -- "$value"))
        return ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gpuwatch_options $cmd)" -- "$cur"))
        [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
        return
    fi
    if [[ -z $cmd && -z $smi ]]; then
        COMPREPLY=($(compgen -W "$(_gpuwatch_list commands)" -- "$cur"))
        return
    fi
    # subcommands (rules check, history export, ...): the words after "gpuwatch CMD" in its usage
    if [[ -n $cmd && $prev == "$cmd" ]]; then
        local subs
        subs=$("$_gpuwatch_prog" "$cmd" --help 2>/dev/null | grep -oE "gpuwatch $cmd [a-z]+" | awk '{print $3}' | sort -u)
        [[ -n $subs ]] && COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    fi
    [[ ${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
}

complete -F _gpuwatch gpuwatch
