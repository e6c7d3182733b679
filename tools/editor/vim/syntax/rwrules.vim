" Vim syntax for rwgraph rule files (.rules): docs/rules-language.md.
if exists('b:current_syntax')
  finish
endif

runtime! syntax/rwcommon.vim

" `rule NAME`, `ruleset NAME`, `declare OP`: the keyword, then the name.
syn keyword rwStatement    rule ruleset declare nextgroup=rwDeclName skipwhite
syn match   rwDeclName     contained "\h\w*"
syn match   rwModifier     "\<tags\ze\s*("
syn match   rwModifier     "\<priority\ze\s*-\=\s*\d"
syn keyword rwModifier     multiple_clients

hi def link rwDeclName     Function
hi def link rwModifier     StorageClass

let b:current_syntax = 'rwrules'
